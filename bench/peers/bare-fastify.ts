// A bare Fastify 5 route answering every request with the same bytes as querygate's cached REST
// hit, under its headers: what the framework alone costs, the floor for our REST face.
import Fastify from 'fastify';

const body = process.env.BODY ?? '';
const headers = JSON.parse(process.env.HEADERS ?? '{}') as Record<string, string>;
const app = Fastify({ logger: false });
app.all('/*', (_request, reply) => {
  reply.headers(headers).send(body);
});
const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening on ${url}\n`);
