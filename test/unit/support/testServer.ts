import http from 'node:http';
import type net from 'node:net';

export interface TestServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** A plain HTTP server on 127.0.0.1 with an ephemeral port; `close` also ends open connections. */
export async function startTestServer(handler: http.RequestListener): Promise<TestServer> {
  const server = http.createServer(handler);
  const sockets = new Set<net.Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
