import type { Credential } from '../src/core/auth/credential';
import type { Environment } from '../src/core/environment/environment';
import type { HttpExchange } from '../src/core/http/exchange';
import { ApiClient } from '../src/core/http/apiClient';
import { IssueClock } from '../src/core/clock/issueClock';
import { TokenIssuer } from '../src/core/auth/tokenIssuer';
import type { SandboxEnvironment } from '../src/sandbox/sandboxServer';
import { PlainIatCounter, makeCredentials, signPlain, trustEntryOf } from './benchKeys';
import type { ReportedFigure } from './figures';
import { round3 } from './figures';
import { startSandboxProcess } from './sandboxProcess';
import { alternate, median, medianRatio, nowMs, percentile } from './stats';

/** Keys per side: requests go round-robin over them, so the per-key clock never makes a request wait. */
const KEYS_PER_SIDE = 16;
const ROUNDS = 24;
const PER_ROUND = 40;

/** The core's view of a sandbox environment. */
export function environmentOf(env: SandboxEnvironment): Environment {
  return { id: env.id, name: env.id, api: env.api, stage: env.stage, baseUrl: env.baseUrl };
}

/** A core client as the extension builds it, with the millisecond clock the sandbox's rule 6 check needs. */
export function benchClient(): ApiClient {
  return new ApiClient({ issuer: new TokenIssuer({ clock: new IssueClock({ precision: 'milliseconds' }) }) });
}

/**
 * What the core client sends on an MDS environment besides Authorization, written out: the plain loop sends the same
 * (a server reads and answers both alike), and `assertSameHeaders` checks it against the client's first exchange.
 */
export const PLAIN_HEADERS: Readonly<Record<string, string>> = {
  'User-Agent': 'mobility-api-explorer',
  Accept: 'application/vnd.mds+json;version=2.0',
  'Content-Type': 'application/json',
};

/** Throws when the core client sent other headers than the plain loop does (a comparison of unequal requests). */
export function assertSameHeaders(exchange: HttpExchange): void {
  const core = Object.entries(exchange.requestHeaders).filter(([name]) => name.toLowerCase() !== 'authorization');
  if (JSON.stringify(core) !== JSON.stringify(Object.entries(PLAIN_HEADERS))) {
    throw new Error(
      `The core client sent headers ${JSON.stringify(core)}, the plain loop ${JSON.stringify(PLAIN_HEADERS)}: make them equal.`,
    );
  }
}

/**
 * The plain alternative to `ApiClient.listVehicles` for one page: `SignJWT` with a UUID jti and an
 * iat strictly increasing per key, then `fetch` with the client's headers and `res.json()`.
 */
export async function plainGet(
  url: string,
  key: Credential,
  audience: string,
  iats: PlainIatCounter,
): Promise<{ body: unknown; bytes: number }> {
  const token = await signPlain(key, audience, iats.next(key.kid));
  const res = await fetch(url, { headers: { ...PLAIN_HEADERS, Authorization: `Bearer ${token}` } });
  const body: unknown = await res.json();
  if (!res.ok)
    throw new Error(`The sandbox refused a plain request: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  return { body, bytes: Number(res.headers.get('content-length')) };
}

/** One vehicles request through the core client vs the plain loop, latency p50 and p99. */
export async function requestOverheadFigure(): Promise<ReportedFigure> {
  const coreKeys = makeCredentials('ES256', KEYS_PER_SIDE, 'req-core');
  const plainKeys = makeCredentials('ES256', KEYS_PER_SIDE, 'req-plain');
  // Small pages: the figure is about what surrounds the request, not about moving bytes.
  const sandbox = await startSandboxProcess({
    options: { fleetSize: 500, pageSize: 10, verifyTokens: true },
    trust: [...coreKeys, ...plainKeys].map(trustEntryOf),
  });
  try {
    const env = environmentOf(sandbox.mds);
    const url = `${env.baseUrl}/vehicles`;
    const client = benchClient();
    const iats = new PlainIatCounter();
    const coreAll: number[] = [];
    const plainAll: number[] = [];
    let coreCount = 0;
    let plainCount = 0;
    const coreRound = async () => {
      const times: number[] = [];
      for (let i = 0; i < PER_ROUND; i++) {
        const key = coreKeys[coreCount++ % coreKeys.length];
        const t0 = nowMs();
        const listing = await client.listVehicles(env, key, { allPages: false });
        times.push(nowMs() - t0);
        const page = listing.pages[0];
        if (!page?.ok)
          throw new Error(
            `The sandbox refused a core request: ${page?.status ?? 'no answer'} ${page?.text?.slice(0, 300) ?? ''}`,
          );
        if (coreCount === 1) assertSameHeaders(page);
      }
      coreAll.push(...times);
      return median(times);
    };
    const plainRound = async () => {
      const times: number[] = [];
      for (let i = 0; i < PER_ROUND; i++) {
        const key = plainKeys[plainCount++ % plainKeys.length];
        const t0 = nowMs();
        await plainGet(url, key, env.baseUrl, iats);
        times.push(nowMs() - t0);
      }
      plainAll.push(...times);
      return median(times);
    };
    const warmupRounds = 3;
    const { a, b } = await alternate(ROUNDS, warmupRounds, coreRound, plainRound);
    const measuredCore = coreAll.slice(warmupRounds * PER_ROUND);
    const measuredPlain = plainAll.slice(warmupRounds * PER_ROUND);
    const ratio = medianRatio(a, b);
    const p99Core = percentile(measuredCore, 99);
    const p99Plain = percentile(measuredPlain, 99);
    return {
      name: 'request overhead, one vehicles page with a fresh token, sandbox on 127.0.0.1: core client p50 / plain SignJWT+fetch p50',
      value: ratio,
      unit: 'x',
      target: '<= 1.1 x',
      met: ratio <= 1.1,
      raw: `p50 core ${round3(median(measuredCore))} ms, plain ${round3(median(measuredPlain))} ms; p99 core ${round3(p99Core)} ms, plain ${round3(p99Plain)} ms (p99 ratio ${round3(p99Core / p99Plain)} x, no target); ${measuredCore.length} requests per side`,
    };
  } finally {
    await sandbox.close();
  }
}
