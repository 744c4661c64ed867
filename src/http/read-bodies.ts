import type { FastifyInstance } from 'fastify';

/**
 * Makes a face's scope read every body as bytes, within `bodyLimit` on the wire (413 beyond),
 * whatever its content type: the face parses them itself, so a malformed body gets its message.
 */
export function readBodiesAsBytes(app: FastifyInstance, bodyLimit?: number): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    '*',
    { parseAs: 'buffer', ...(bodyLimit === undefined ? {} : { bodyLimit }) },
    (_request, body, done) => done(null, body),
  );
}
