/**
 * What grpc-js cannot show the sandbox of a call's headers.
 *
 * Two `authorization` fields: grpc-js builds a call's metadata from
 * Node's header object, in which Node keeps only the first `authorization` field (Node treats it as
 * single-valued and drops the rest), so a call with two `authorization` values would look like a call
 * with one. The HTTP/2 server's 'stream' event also carries the raw header list: a listener placed
 * before grpc-js's puts every `authorization` value back into the header object, so the call's
 * metadata holds them all and the token check (grpcGuard.ts) refuses the call with INVALID_ARGUMENT.
 *
 * A header field over 64 KiB (a huge token): Node's HTTP/2 (nghttp2) cannot decode a field whose name
 * and value exceed 65,536 bytes, a limit built into nghttp2 that no option raises. It sends GOAWAY
 * (COMPRESSION_ERROR) naming the call's stream as processed, stops reading, and leaves the connection
 * open without telling Node's JavaScript or grpc-js anything: the call never reaches a handler, and a
 * client that waits for that stream (grpcio, grpc-go) waits until its deadline. What shows is that
 * the session's last processed stream id moved past every stream that was delivered; a ping then
 * tells a dead session (no acknowledgement) from one that merely reset a stream (answered already).
 * The sandbox logs the dead session and closes it, so that the client gets UNAVAILABLE at once.
 */
import type * as http2 from 'node:http2';
import type * as grpc from '@grpc/grpc-js';

/** The `authorization` values of a raw header list (`[name, value, name, value, …]`, names in lower case in HTTP/2). */
export function authorizationValues(rawHeaders: readonly string[]): string[] {
  const values: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2)
    if (rawHeaders[i].toLowerCase() === 'authorization') values.push(rawHeaders[i + 1]);
  return values;
}

function keepEveryAuthorization(
  _stream: http2.ServerHttp2Stream,
  headers: http2.IncomingHttpHeaders,
  _flags: number,
  rawHeaders: string[],
): void {
  const values = authorizationValues(rawHeaders);
  // grpc-js adds each element of an array value to the metadata.
  if (values.length > 1) (headers as Record<string, unknown>).authorization = values;
}

/** The HTTP/2 servers grpc-js made for `server` so far (a private field: grpc-js offers no option for what follows); undefined when that field is not there (another grpc-js). */
function http2ServersOf(server: grpc.Server): http2.Http2Server[] | undefined {
  const servers = (server as unknown as { http2Servers?: unknown }).http2Servers;
  return servers instanceof Map && servers.size > 0
    ? [...(servers.keys() as IterableIterator<http2.Http2Server>)]
    : undefined;
}

/**
 * Makes every `authorization` field of a call reach its metadata, on the HTTP/2 servers `server` has
 * bound so far (call it after bindAsync). Returns false when grpc-js's servers are not to be found:
 * then a second value is dropped as before, and test/unit/sandboxGrpc.test.ts says so.
 */
export function seeEveryAuthorization(server: grpc.Server): boolean {
  const servers = http2ServersOf(server);
  for (const http2Server of servers ?? []) http2Server.prependListener('stream', keepEveryAuthorization);
  return servers !== undefined;
}

/** How often a connection's stream ids are compared, and how long a ping may take before the connection counts as dead. */
export const UNREADABLE_POLL_MS = 200;
export const UNREADABLE_PING_MS = 2000;

/** Nghttp2's limit of one header field (name and value), in bytes. */
export const MAX_HEADER_FIELD_BYTES = 65_536;

function watchSession(session: http2.ServerHttp2Session, onUnreadable: () => void): void {
  let delivered = 0;
  let suspect: number | undefined;
  let pinging = false;
  session.on('stream', (stream: http2.ServerHttp2Stream) => {
    delivered = Math.max(delivered, stream.id ?? 0);
  });
  const stop = () => clearInterval(timer);
  const timer = setInterval(() => {
    if (session.destroyed || session.closed) return stop();
    if (pinging) return;
    const last = session.state.lastProcStreamID ?? 0;
    // Seen at two polls in a row: not a header block still arriving.
    if (last <= delivered || suspect !== last) {
      suspect = last > delivered ? last : undefined;
      return;
    }
    pinging = true;
    const dead = () => {
      stop();
      if (session.destroyed) return;
      onUnreadable();
      session.destroy();
    };
    const wait = setTimeout(dead, UNREADABLE_PING_MS);
    const answered = (err: Error | null) => {
      clearTimeout(wait);
      pinging = false;
      if (err) return dead();
      // Alive: the stream was reset for another reason (and answered so).
      delivered = Math.max(delivered, last);
      suspect = undefined;
    };
    try {
      if (!session.ping(answered)) answered(new Error('ping not sent'));
    } catch (err) {
      answered(err instanceof Error ? err : new Error(String(err)));
    }
  }, UNREADABLE_POLL_MS);
  timer.unref();
  session.once('close', stop);
}

/**
 * Watches every connection of `server` (call it after bindAsync) for a call whose headers the HTTP/2
 * layer could not read; `onUnreadable` is told of each before its connection is closed.
 */
export function watchUnreadableHeaders(server: grpc.Server, onUnreadable: () => void): boolean {
  const servers = http2ServersOf(server);
  for (const http2Server of servers ?? [])
    http2Server.on('session', (session: http2.ServerHttp2Session) => watchSession(session, onUnreadable));
  return servers !== undefined;
}
