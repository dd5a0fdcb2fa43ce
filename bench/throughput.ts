import { Agent, request } from 'node:http';
import { PlainIatCounter, makeCredentials, signPlain, trustEntryOf } from './benchKeys';
import type { ReportedFigure } from './figures';
import { round3 } from './figures';
import type { SandboxProcess } from './sandboxProcess';
import { startSandboxProcess } from './sandboxProcess';
import { alternate, median, medianRatio, nowMs } from './stats';

/** Connections kept busy at once; each has keys of its own so that every key's requests stay in order. */
const CONNECTIONS = 16;
const KEYS_PER_CONNECTION = 2;
const PER_CONNECTION = 60;
const ROUNDS = 7;

function get(agent: Agent, url: URL, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { agent, headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Requests per second: every connection sends its tokens one after another. */
async function load(agent: Agent, url: URL, tokens: readonly string[][]): Promise<number> {
  let refused = 0;
  const start = nowMs();
  await Promise.all(
    tokens.map(async (list) => {
      for (const token of list) if ((await get(agent, url, token)) !== 200) refused++;
    }),
  );
  const seconds = (nowMs() - start) / 1000;
  if (refused > 0)
    throw new Error(`The sandbox refused ${refused} benchmark request(s); the load generator's tokens are wrong.`);
  return tokens.flat().length / seconds;
}

/**
 * The sandbox's requests/s with token verification against the same server with verification off.
 * Tokens are signed before each round (one set, sent to both servers), so that signing does not
 * slow the load generator; the servers run in child processes of their own.
 */
export async function sandboxThroughputFigure(): Promise<ReportedFigure> {
  const keys = makeCredentials('ES256', CONNECTIONS * KEYS_PER_CONNECTION, 'load');
  const trust = keys.map(trustEntryOf);
  const servers: SandboxProcess[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  try {
    servers.push(await startSandboxProcess({ options: { verifyTokens: true }, trust }));
    servers.push(await startSandboxProcess({ options: { verifyTokens: false }, trust }));
    const [verifying, open] = servers as [SandboxProcess, SandboxProcess];
    const iats = new PlainIatCounter();
    // The verification-off server ignores the token, so the same tokens can go to both; the
    // verifying one sees each token once, in order per key.
    let tokens: string[][] = [];
    const sign = async () => {
      tokens = await Promise.all(
        Array.from({ length: CONNECTIONS }, async (_, c) => {
          const list: string[] = [];
          for (let i = 0; i < PER_CONNECTION; i++) {
            const key = keys[c * KEYS_PER_CONNECTION + (i % KEYS_PER_CONNECTION)];
            list.push(await signPlain(key, verifying.mds.baseUrl, iats.next(key.kid)));
          }
          return list;
        }),
      );
    };
    const onUrl = new URL(`${verifying.mds.baseUrl}/vehicles`);
    const offUrl = new URL(`${open.mds.baseUrl}/vehicles`);
    let round = 0;
    const onSide = async () => {
      if (round++ % 2 === 0) await sign();
      return load(agent, onUrl, tokens);
    };
    const offSide = async () => {
      if (round++ % 2 === 0) await sign();
      return load(agent, offUrl, tokens);
    };
    const { a, b } = await alternate(ROUNDS, 2, onSide, offSide);
    const ratio = medianRatio(a, b);
    return {
      name: `sandbox throughput, ${CONNECTIONS} keep-alive connections, pages of 100 vehicles: requests/s with token verification / verification off`,
      value: ratio,
      unit: 'x',
      target: '>= 0.5 x',
      met: ratio >= 0.5,
      raw: `verification on ${round3(median(a))} requests/s, off ${round3(median(b))} requests/s (server in its own process, load from node:http in the parent)`,
    };
  } finally {
    agent.destroy();
    for (const server of servers) await server.close();
  }
}
