/** The sandbox's own answers outside the MDS routes: a refused token, and requests Node's HTTP parser cannot read. */
import type { Duplex } from 'node:stream';
import type { TokenRefusal } from '../auth/tokenVerifier';
import type { MdsErrorBody, Reply } from './mdsResponses';
import { errorBody, errorReply, JSON_CONTENT_TYPE } from './mdsResponses';

/** Header values must be visible ASCII; quotes would end the quoted-string early. */
function headerSafe(text: string): string {
  return text.replace(/[\\"]/g, "'").replace(/[^\x20-\x7e]/g, '?');
}

export function unauthorized(refusal: TokenRefusal): Reply {
  const challenge = `Bearer error="invalid_token", error_description="${headerSafe(`${refusal.rule}: ${refusal.description}`)}"`;
  return {
    ...errorReply(401, 'invalid_token', refusal.description, refusal.details, { 'WWW-Authenticate': challenge }),
    rule: refusal.rule,
    kid: refusal.kid,
  };
}

/** What Node's parser reports, as the status and MDS error body a client should get. */
function clientErrorReply(code: string | undefined): { status: number; reason: string; body: MdsErrorBody } {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: 431,
      reason: 'Request Header Fields Too Large',
      body: errorBody(
        'header_too_large',
        'The request headers are larger than the server accepts (Node limits them to 16 KiB by default). Send a shorter token or fewer headers.',
        [`parser: ${code}`],
      ),
    };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'ERR_HTTP_HEADERS_TIMEOUT') {
    return {
      status: 408,
      reason: 'Request Timeout',
      body: errorBody('request_timeout', 'The request was not complete in time.', [`parser: ${code}`]),
    };
  }
  return {
    status: 400,
    reason: 'Bad Request',
    body: errorBody('bad_request', 'The request is not valid HTTP/1.1, so the server could not read it.', [
      `parser: ${code ?? 'unknown'}`,
    ]),
  };
}

/**
 * Node answers requests it cannot parse with a bare status line and no body (or drops them); the
 * sandbox promises an MDS error body on every error, so it writes the response itself.
 */
export function answerClientError(
  err: NodeJS.ErrnoException,
  socket: Duplex,
  onRequest: ((log: { method: string; path: string; status: number; description: string }) => void) | undefined,
  nowMs: number,
): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const { status, reason, body } = clientErrorReply(err.code);
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nDate: ${new Date(nowMs).toUTCString()}\r\nContent-Type: ${JSON_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(text)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${text}`,
  );
  try {
    onRequest?.({ method: '?', path: '?', status, description: body.error_description });
  } catch {
    // A failing logger must not take the server down.
  }
}
