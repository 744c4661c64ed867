import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { QuerygateError } from '../errors.js';
import { allowMethods } from '../http/allow-methods.js';

/**
 * The checked body of a call to an operator's route (`/api/store-query`, `/api/store-import`,
 * which `querygate query` and `import` call while this server holds the store): a POST from a
 * client on this machine, carrying a JSON body of `schema`'s shape (`shape` says it in the 400).
 * A key held elsewhere (a dashboard's, Studio's) cannot use these routes.
 */
export function operatorRequest<T>(request: FastifyRequest, schema: z.ZodType<T>, shape: string): T {
  allowMethods(request, ['POST']);
  if (!fromThisMachine(request))
    throw new QuerygateError('FORBIDDEN', `${request.url} answers clients on this machine only`);
  const body = schema.safeParse(parseJson(request.body as Buffer | undefined));
  if (!body.success) {
    const [issue] = body.error.issues;
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    throw new QuerygateError('BAD_REQUEST', `the body must be ${shape}: ${where}${issue?.message}`);
  }
  return body.data;
}

function parseJson(body: Buffer | undefined): unknown {
  try {
    return JSON.parse(body?.toString('utf8') ?? '');
  } catch {
    return undefined;
  }
}

/**
 * Whether the client is on this machine: a loopback address, or the one it reached us at, and
 * not relaying for another (a reverse proxy on this machine adds Forwarded or X-Forwarded-For).
 */
function fromThisMachine(request: FastifyRequest): boolean {
  if (request.headers.forwarded !== undefined || request.headers['x-forwarded-for'] !== undefined)
    return false;
  const { remoteAddress, localAddress } = request.raw.socket;
  const remote = remoteAddress?.replace(/^::ffff:/, '');
  return remote === '::1' || remote?.startsWith('127.') === true || remoteAddress === localAddress;
}
