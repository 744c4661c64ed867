// A bare Fastify 5 route answering every request with the same bytes as querygate's cached REST
// hit: what the framework alone costs, the floor for our REST face.
import Fastify from 'fastify';

const body = process.env.BODY ?? '';
const app = Fastify({ logger: false });
app.all('/*', (_request, reply) => {
  reply.header('content-type', 'application/json; charset=utf-8').send(body);
});
const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening on ${url}\n`);
