import { type DestinationStream, type LevelWithSilent, type Logger, pino } from 'pino';

/**
 * Where a credential could reach a log line: the key headers and `api_key` of a logged request
 * or URL. Nothing logs requests today (Fastify's request logging is off); this keeps a key out
 * should a request or its query ever be logged.
 */
export const redactedPaths = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.query.api_key',
  'headers["x-api-key"]',
  'headers.authorization',
  'query.api_key',
  'api_key',
];

/** Strips `api_key=...` from a URL or request target before it is logged. */
export function withoutApiKey(url: string): string {
  return url.replace(/([?&])api_key=[^&#]*/gi, '$1api_key=[Redacted]');
}

/** The server's pino logger, with credentials redacted and URLs logged without `api_key`. */
export function createLogger(level: LevelWithSilent, destination?: DestinationStream): Logger {
  const options = {
    level,
    redact: redactedPaths,
    serializers: {
      req: (req: { method?: string; url?: string }) => ({
        method: req.method,
        url: withoutApiKey(req.url ?? ''),
      }),
      url: (url: unknown) => (typeof url === 'string' ? withoutApiKey(url) : url),
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
