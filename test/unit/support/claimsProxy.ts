import http from 'node:http';
import type net from 'node:net';
import { decodeJwt } from 'jose';

/** The claims a proxied request carried, in the order requests reached the proxy. */
export interface ProxiedToken {
  iat: number;
  jti: string;
}

export interface ClaimsProxy {
  url: string;
  /** Tokens in arrival order. */
  arrivals: ProxiedToken[];
  close(): Promise<void>;
}

/**
 * A pass-through proxy on 127.0.0.1 in front of `target` (e.g. a sandbox) that records `iat` and
 * `jti` of each bearer token as the request arrives, then forwards it unchanged, so tests see the
 * order in which the server received tokens without the server having to log them.
 */
export async function startClaimsProxy(target: string): Promise<ClaimsProxy> {
  const arrivals: ProxiedToken[] = [];
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((req, res) => {
    const token = String(req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
    try {
      const claims = decodeJwt(token);
      arrivals.push({ iat: Number(claims.iat), jti: String(claims.jti) });
    } catch {
      // A request without a token is forwarded all the same; the server answers it.
    }
    const forward = http.request(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  const sockets = new Set<net.Socket>();
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        agent.destroy();
        server.close(() => resolve());
      }),
  };
}
