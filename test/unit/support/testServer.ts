import http from 'node:http';
import https from 'node:https';
import net from 'node:net';

export interface TestServer {
  url: string;
  port: number;
  /** TCP connections open on the server side right now. */
  openConnections(): number;
  /**
   * Open connections that have carried at least one byte from the client (a request). Node's fetch
   * (undici) may open a spare connection after a cancel and close it when idle for 4 s; it carries
   * nothing.
   */
  usedConnections(): number;
  /** Resolves once no used connection is open, or rejects after `timeoutMs`. */
  waitUntilNoUsedConnections(timeoutMs?: number): Promise<void>;
  /** Connections accepted since the start. */
  acceptedConnections(): number;
  /** Resolves once no connection is open, or rejects after `timeoutMs`. */
  waitUntilNoConnections(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** PEM key and certificate for an HTTPS test server. */
export interface TlsOptions {
  key: string;
  cert: string;
}

/** How a test server treats idle connections. */
export interface TestServerOptions {
  /**
   * The server's keep-alive timeout (Node's default is 5 s): an answered connection idles in the
   * client's pool this long before the server ends it.
   */
  keepAliveTimeoutMs?: number;
}

/**
 * A plain HTTP server (HTTPS with `tls`) on 127.0.0.1 with an ephemeral port; it counts its
 * connections, and `close` also ends open connections. The one test HTTP server of the unit,
 * integration and e2e tests.
 */
export async function startTestServer(
  handler: http.RequestListener,
  tls?: TlsOptions,
  options: TestServerOptions = {},
): Promise<TestServer> {
  const server = tls ? https.createServer({ key: tls.key, cert: tls.cert }, handler) : http.createServer(handler);
  if (options.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = options.keepAliveTimeoutMs;
  // A client that gives up during the TLS handshake is expected in these tests.
  server.on('tlsClientError', () => undefined);
  return listen(server, tls ? 'https' : 'http');
}

/** A port on 127.0.0.1 that was free a moment ago (a server took it and let it go), for "nobody listens here". */
export async function freeLoopbackPort(): Promise<number> {
  const server = await startTestServer(() => undefined);
  await server.close();
  return server.port;
}

/** A raw TCP server on 127.0.0.1, for answers no HTTP server would give (dripped status lines, garbage, resets). */
export async function startRawServer(onSocket: (socket: net.Socket) => void): Promise<TestServer> {
  const server = net.createServer((socket) => {
    socket.on('error', () => undefined);
    onSocket(socket);
  });
  return listen(server, 'http');
}

async function listen(server: net.Server, scheme: 'http' | 'https'): Promise<TestServer> {
  const sockets = new Set<net.Socket>();
  const used = new Set<net.Socket>();
  const waiters = new Set<() => void>();
  let accepted = 0;
  server.on('connection', (socket: net.Socket) => {
    accepted++;
    sockets.add(socket);
    // prependListener: counted even when the HTTP parser consumes the bytes.
    socket.prependListener('data', () => used.add(socket));
    socket.on('close', () => {
      sockets.delete(socket);
      used.delete(socket);
      for (const wake of [...waiters]) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const waitUntil = (what: string, done: () => boolean, timeoutMs: number) =>
    new Promise<void>((resolve, reject) => {
      if (done()) return resolve();
      const timer = setTimeout(() => {
        waiters.delete(wake);
        reject(new Error(`${what} still open after ${timeoutMs} ms`));
      }, timeoutMs);
      const wake = () => {
        if (!done()) return;
        clearTimeout(timer);
        waiters.delete(wake);
        resolve();
      };
      waiters.add(wake);
    });
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    port,
    openConnections: () => sockets.size,
    usedConnections: () => used.size,
    acceptedConnections: () => accepted,
    waitUntilNoConnections: (timeoutMs = 6000) =>
      waitUntil(`${sockets.size} connection(s)`, () => sockets.size === 0, timeoutMs),
    waitUntilNoUsedConnections: (timeoutMs = 2000) =>
      waitUntil(`${used.size} used connection(s)`, () => used.size === 0, timeoutMs),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A request as a canned server saw it. */
export interface SeenRequest {
  method: string;
  /** Path and query as sent (`/mds/trips?end_time=2024-11-05T14`). */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
}

/** A canned answer: a status, headers, and a body (an object is sent as MDS JSON). */
export interface CannedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string | object;
}

/**
 * A test server that answers every request with `answer(request)` and records what it saw, for
 * endpoints the sandbox does not serve (trips, telemetry, events, stops, reports).
 */
export async function startCannedServer(
  answer: (request: SeenRequest, serverUrl: string) => CannedAnswer,
): Promise<TestServer & { seen: SeenRequest[] }> {
  const seen: SeenRequest[] = [];
  let serverUrl = '';
  const server = await startTestServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://canned.invalid');
    const request: SeenRequest = {
      method: req.method ?? '',
      url: req.url ?? '',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
    };
    seen.push(request);
    const canned = answer(request, serverUrl);
    const isText = typeof canned.body === 'string';
    const text = canned.body === undefined ? '' : isText ? (canned.body as string) : JSON.stringify(canned.body);
    const type = canned.body === undefined || isText ? {} : { 'Content-Type': 'application/vnd.mds+json;version=2.0' };
    res.writeHead(canned.status, { ...type, ...(canned.headers ?? {}) });
    res.end(text);
  });
  serverUrl = server.url;
  return { ...server, seen };
}
