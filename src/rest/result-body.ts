import { toJson } from '../http/respond.js';
import { largestStringBody } from '../http/send-raw.js';
import type { Encoding } from '../resolve/encodings.js';

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
