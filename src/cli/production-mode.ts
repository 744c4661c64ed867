// Imported first by the CLI, before anything imports graphql: graphql-js reads NODE_ENV once, when
// it is loaded, and outside production it checks every `instanceof` across realms (7 % of an
// executed GraphQL request's CPU). A server started by the CLI is production unless told otherwise;
// tests import the server directly and keep graphql-js's development checks.
if (!process.env.NODE_ENV) process.env.NODE_ENV = 'production';
