import type { FastifyRequest } from 'fastify';
import { QuerygateError } from '../errors.js';

/**
 * The body of a GET, which Fastify never reads (GET is bodyless to it): Logflare reads a JSON body
 * on a GET to a sandboxed endpoint, and Studio sends its `sql` so. Read within the route's body
 * limit (413 beyond, as for any other body); undefined when the request announces no body.
 */
export async function readGetBody(request: FastifyRequest): Promise<Buffer | undefined> {
  const { headers } = request;
  const announced = headers['content-length'];
  if (headers['transfer-encoding'] === undefined && (announced === undefined || announced === '0')) {
    return undefined;
  }
  const limit = request.routeOptions.bodyLimit ?? 1024 * 1024;
  if (announced !== undefined && Number(announced) > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request.raw) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function tooLarge(limit: number): QuerygateError {
  return new QuerygateError('PAYLOAD_TOO_LARGE', `The request body is larger than ${limit} bytes`);
}
