/**
 * What grpc-js cannot show the sandbox of a call's headers. grpc-js builds a call's metadata from
 * Node's header object, in which Node keeps only the first `authorization` field (Node treats it as
 * single-valued and drops the rest), so a call with two `authorization` values would look like a call
 * with one. The HTTP/2 server's 'stream' event also carries the raw header list: a listener placed
 * before grpc-js's puts every `authorization` value back into the header object, so the call's
 * metadata holds them all and the token check (grpcGuard.ts) refuses the call with INVALID_ARGUMENT.
 */
import type * as http2 from 'node:http2';
import type * as grpc from '@grpc/grpc-js';

/** The `authorization` values of a raw header list (`[name, value, name, value, …]`, names in lower case in HTTP/2). */
export function authorizationValues(rawHeaders: readonly string[]): string[] {
  const values: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) if (rawHeaders[i].toLowerCase() === 'authorization') values.push(rawHeaders[i + 1]);
  return values;
}

function keepEveryAuthorization(_stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, _flags: number, rawHeaders: string[]): void {
  const values = authorizationValues(rawHeaders);
  // grpc-js adds each element of an array value to the metadata.
  if (values.length > 1) (headers as Record<string, unknown>).authorization = values;
}

/**
 * Makes every `authorization` field of a call reach its metadata, on the HTTP/2 servers `server` has
 * bound so far (call it after bindAsync). grpc-js offers no option for this: its HTTP/2 servers are
 * a private field. Returns false when that field is not there (another grpc-js): then a second value
 * is dropped as before, and test/unit/sandboxGrpc.test.ts says so.
 */
export function seeEveryAuthorization(server: grpc.Server): boolean {
  const servers = (server as unknown as { http2Servers?: unknown }).http2Servers;
  if (!(servers instanceof Map) || servers.size === 0) return false;
  for (const http2Server of servers.keys() as IterableIterator<http2.Http2Server>) http2Server.prependListener('stream', keepEveryAuthorization);
  return true;
}
