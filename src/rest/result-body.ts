import { toJson } from '../http/respond.js';
import type { Encoding } from '../resolve/encodings.js';

// Node joins a string body to the response head in one chunk, but sends a Buffer body as a
// second chunk: for an 8 KB answer the one-chunk form served about 10-15 % more hits per CPU
// second (bench, bare node:http). But joining copies and UTF-8-encodes the body on every hit:
// for the bench's 11 KB answer, answered before Fastify, the Buffer cost no more CPU per hit
// (14.1-14.9 µs against 15.1-15.7) and served 10-25 % more hits/s. So text up to 8 KB only.
const largestStringBody = 8 * 1024;

/**
 * The REST body of a result, `{"result": rows}`, as sent. Encoded once per result: serialising
 * with toJson's bigint replacer was the largest single cost of a cached hit.
 */
export const resultBody: Encoding<string | Buffer> = {
  make(result) {
    const json = toJson({ result: result.rows });
    return json.length <= largestStringBody ? json : Buffer.from(json);
  },
  sizeOf: (body) => (typeof body === 'string' ? 2 * body.length : body.length),
};

/** The REST body of a result with its byte length, worked out once rather than per hit. */
export const resultResponse: Encoding<{ readonly body: string | Buffer; readonly length: number }> = {
  make(result) {
    const body = resultBody.make(result);
    return { body, length: typeof body === 'string' ? Buffer.byteLength(body) : body.length };
  },
  sizeOf: ({ body }) => resultBody.sizeOf(body),
};
