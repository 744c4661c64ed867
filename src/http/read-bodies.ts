import type { FastifyInstance } from 'fastify';

/**
 * Makes a face's scope read every body as bytes, within `bodyLimit` on the wire (413 beyond),
 * whatever its content type: the face parses them itself, so a malformed body gets its message.
 * JSON is also named on its own: Fastify caches the parser of a named type, but looks the
 * catch-all up afresh on every request.
 */
export function readBodiesAsBytes(app: FastifyInstance, bodyLimit?: number): void {
  app.removeAllContentTypeParsers();
  const options = { parseAs: 'buffer' as const, ...(bodyLimit === undefined ? {} : { bodyLimit }) };
  for (const contentType of ['application/json', '*']) {
    app.addContentTypeParser(contentType, options, (_request, body, done) => done(null, body));
  }
}
