// mercurius (Fastify's GraphQL adapter) with graphql-jit compiling every operation from its first
// use, over querygate's own SDL (schema/schema.graphql) and the same rows querygate answers: the
// fastest executed-GraphQL peer on Node, as issue 20 measures against. The resolvers hand back the
// rows kept in memory for the call's arguments (a lookup by their key, as a cache would make), so
// what is timed is the GraphQL request path alone, as for our cached hits.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import mercurius from 'mercurius';
import { argumentsKey } from '../varied-operations.js';

const sdl = readFileSync(process.env.SCHEMA_FILE ?? 'schema/schema.graphql', 'utf8');
/** `{ namespace: { field: { argumentsKey: rows } } }` (see varied-operations.ts). */
const answers = JSON.parse(readFileSync(process.env.ANSWERS_FILE ?? '', 'utf8')) as Record<
  string,
  Record<string, Record<string, unknown>>
>;

type Resolver = (parent: unknown, args: Record<string, unknown>) => unknown;
const resolvers: Record<string, Record<string, Resolver>> = { Query: {} };
for (const [namespace, fields] of Object.entries(answers)) {
  const query = resolvers.Query as Record<string, Resolver>;
  query[namespace] = () => ({});
  const typeName = `${namespace[0]?.toUpperCase()}${namespace.slice(1)}Queries`;
  resolvers[typeName] = Object.fromEntries(
    Object.entries(fields).map(([field, byArguments]) => [
      field,
      (_parent: unknown, args: Record<string, unknown>) => byArguments[argumentsKey(args)],
    ]),
  );
}

const app = Fastify({ logger: false });
await app.register(mercurius, { schema: sdl, resolvers, jit: 1, graphiql: false });
const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening on ${url}\n`);
