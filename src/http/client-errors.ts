import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorCode } from '../errors.js';
import { toJson } from './respond.js';

/** A request Node's HTTP parser refused, as Node hands it to the server's `clientError`. */
interface ClientError extends Error {
  readonly code?: string;
  /** llhttp's reason, fixed text such as "Invalid character in Content-Length". */
  readonly reason?: string;
}

/**
 * Answers a request Node could not read as HTTP/1.1 (a Content-Length that is no number, both
 * Content-Length and Transfer-Encoding, headers beyond Node's limit, a method that is no token)
 * or did not receive in time, then closes the connection, as Node and Fastify do. Fastify's
 * default answers `{"error":"Bad Request","message":"Client Error","statusCode":400}`, neither
 * the shape of every other error nor a word on what was wrong; this one says it in that shape,
 * from llhttp's reason, which is fixed text and never echoes the request.
 */
export function answerClientError(error: ClientError, socket: Socket): void {
  // A reset connection has no one to answer (https://nodejs.org/api/http.html#event-clienterror).
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message] = describe(error);
  const body = toJson({ error: { code, message } });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

function describe(error: ClientError): [number, ErrorCode, string] {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return [408, 'BAD_REQUEST', 'The request was not received in time'];
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return [
      431,
      'HEADERS_TOO_LARGE',
      `The request line and headers are larger than ${maxHeaderSize} bytes (a long query string counts)`,
    ];
  }
  const reason = typeof error.reason === 'string' && error.reason !== '' ? error.reason : 'malformed request';
  return [400, 'BAD_REQUEST', `The request is not valid HTTP/1.1: ${reason}`];
}
