// The harvest against the plain loops it replaces, and its memory over 6 to 96 hours. The RSS side
// runs alone in a child process (this file, forked with HARVEST_BENCH_CHILD=1) so that its peak is its own.
import { fork } from 'node:child_process';
import { createPrivateKey } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Credential } from '../src/core/auth/credential';
import { harvestHours } from '../src/core/harvest/harvestRun';
import type { MdsHourEndpointId } from '../src/core/mds/mdsEndpoints';
import { formatUtcHour, floorToUtcHour } from '../src/core/mds/utcHour';
import type { SandboxEnvironment } from '../src/sandbox/sandboxServer';
import { PlainIatCounter, credentialFromPem, ecPem, trustEntryOf } from './benchKeys';
import type { ReportedFigure } from './figures';
import { round3 } from './figures';
import { benchClient, environmentOf, plainGet } from './requests';
import { startSandboxProcess } from './sandboxProcess';
import { interleave, median, medianRatio, nowMs } from './stats';

const HOUR_MS = 3_600_000;
const FLEET_SIZE = 500;
const ROUNDS = 16;

/** What the parent sends an RSS child: the range to harvest and the key (generated for this run, IPC only). */
interface HarvestChildRequest {
  env: SandboxEnvironment;
  pem: string;
  kid: string;
  endpoint: MdsHourEndpointId;
  hours: number;
}

interface HarvestChildReply {
  items: number;
  maxRssKb: number;
}

/** The `hours` hours ending two hours before now (inside the sandbox's history, never the current hour). */
function rangeOf(hours: number): { from: string; to: string; list: string[] } {
  const last = floorToUtcHour(Date.now()) - 2 * HOUR_MS;
  const list = Array.from({ length: hours }, (_, i) => formatUtcHour(last - (hours - 1 - i) * HOUR_MS));
  return { from: list[0], to: list[list.length - 1], list };
}

/** One harvest of `hours` hours into a fresh folder; the time in ms and the items. */
async function harvestOnce(
  env: SandboxEnvironment,
  credential: Credential,
  endpoint: MdsHourEndpointId,
  hours: number,
): Promise<{ ms: number; items: number }> {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-harvest-'));
  try {
    const range = rangeOf(hours);
    const t0 = nowMs();
    const summary = await harvestHours({
      client: benchClient(),
      environment: environmentOf(env),
      credential,
      endpoint,
      from: range.from,
      to: range.to,
      outDir: out,
    });
    const ms = nowMs() - t0;
    if (!summary.complete)
      throw new Error(`The benchmark harvest is incomplete: ${JSON.stringify(summary.notDone.slice(0, 3))}`);
    return { ms, items: summary.items };
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

/**
 * The plain loop: the same requests (one per hour, every page, a fresh token each) through the same
 * client, items appended to one file; `durable`: each hour to its own file, fsynced and renamed, as
 * the harvest does, so that the difference left is the harvest's own bookkeeping.
 */
async function plainOnce(
  env: SandboxEnvironment,
  credential: Credential,
  hours: number,
  durable: boolean,
): Promise<{ ms: number; items: number }> {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-plain-'));
  try {
    const client = benchClient();
    const environment = environmentOf(env);
    const file = path.join(out, 'trips.ndjson');
    let items = 0;
    const t0 = nowMs();
    for (const hour of rangeOf(hours).list) {
      const result = await client.requestEndpoint(
        environment,
        credential,
        'trips',
        { end_time: hour },
        { allPages: true },
      );
      if (result.outcome !== 'items' && result.outcome !== 'empty')
        throw new Error(`The plain loop got ${result.outcome} for ${hour}.`);
      const text = result.items.map((item) => `${JSON.stringify(item)}\n`).join('');
      if (durable) {
        const temp = path.join(out, `.${hour}.tmp`);
        const fd = fs.openSync(temp, 'w');
        fs.writeSync(fd, text);
        fs.fsyncSync(fd);
        fs.closeSync(fd);
        fs.renameSync(temp, path.join(out, `${hour}.ndjson`));
      } else {
        fs.appendFileSync(file, text);
      }
      items += result.items.length;
    }
    return { ms: nowMs() - t0, items };
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

/**
 * The loop a script would write without our client: per hour and page `SignJWT` (UUID jti, iat of now
 * in milliseconds, strictly increasing for the key) + `fetch` + `res.json()`, following
 * `links.next`, the items appended to one file.
 */
async function fetchLoopOnce(
  env: SandboxEnvironment,
  key: Credential,
  hours: number,
): Promise<{ ms: number; items: number }> {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-fetch-'));
  try {
    const file = path.join(out, 'trips.ndjson');
    const iats = new PlainIatCounter();
    let items = 0;
    const t0 = nowMs();
    for (const hour of rangeOf(hours).list) {
      let url: string | null = `${env.baseUrl}/trips?end_time=${hour}`;
      while (url) {
        const body = (await plainGet(url, key, env.baseUrl, iats)).body as {
          trips: unknown[];
          links?: { next?: string | null };
        };
        fs.appendFileSync(file, body.trips.map((item) => `${JSON.stringify(item)}\n`).join(''));
        items += body.trips.length;
        url = body.links?.next ?? null;
      }
    }
    return { ms: nowMs() - t0, items };
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

function runChild(request: HarvestChildRequest): Promise<HarvestChildReply> {
  const child = fork(path.join(__dirname, 'harvest.js'), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, HARVEST_BENCH_CHILD: '1' },
  });
  return new Promise((resolve, reject) => {
    let reply: HarvestChildReply | undefined;
    child.once('message', (message: HarvestChildReply) => (reply = message));
    child.once('error', reject);
    child.once('exit', (code) =>
      reply && code === 0 ? resolve(reply) : reject(new Error(`The harvest child failed (exit code ${String(code)}).`)),
    );
    child.send(request);
  });
}

/**
 * A day of trips: harvest vs the plain loops (through our client; bare SignJWT + fetch; through our
 * client with an fsync per hour file); and the peak RSS of telemetry harvests of 6 to 96 hours.
 */
export async function harvestFigures(): Promise<ReportedFigure[]> {
  const harvestPem = ecPem();
  const plainPem = ecPem();
  const fetchPem = ecPem();
  const harvestKey = credentialFromPem('ES256', harvestPem, 'harvest-core');
  const plainKey = credentialFromPem('ES256', plainPem, 'harvest-plain');
  // Its own key: each side's clock then only has to beat its own last iat.
  const fetchKey: Credential = {
    ...credentialFromPem('ES256', fetchPem, 'harvest-fetch'),
    privateKey: createPrivateKey(fetchPem),
  };
  const sandbox = await startSandboxProcess({
    options: { fleetSize: FLEET_SIZE, pageSize: 100, verifyTokens: true },
    trust: [trustEntryOf(harvestKey), trustEntryOf(plainKey), trustEntryOf(fetchKey)],
  });
  try {
    let dayItems = 0;
    const counts = new Set<number>();
    const counted = async (run: Promise<{ ms: number; items: number }>) => {
      const { ms, items } = await run;
      counts.add(items);
      return ms;
    };
    const [a = [], b = [], c = [], d = []] = await interleave(ROUNDS, 1, [
      async () => {
        const run = await harvestOnce(sandbox.mds, harvestKey, 'trips', 24);
        dayItems = run.items;
        counts.add(run.items);
        return run.ms;
      },
      () => counted(plainOnce(sandbox.mds, plainKey, 24, false)),
      () => counted(plainOnce(sandbox.mds, plainKey, 24, true)),
      () => counted(fetchLoopOnce(sandbox.mds, fetchKey, 24)),
    ]);
    // The sandbox's world moves on with the clock: an hour boundary crossed mid-run changes the range.
    const sameItems =
      counts.size === 1
        ? 'every side got the same trips'
        : `the sides got ${[...counts].join(' / ')} trips (an hour boundary passed during the run)`;
    const ratio = medianRatio(a, b);
    const fetchRatio = medianRatio(a, d);
    const durableRatio = medianRatio(a, c);
    const time: ReportedFigure = {
      name: 'harvest: a day of trips vs a plain loop of the same requests',
      value: ratio,
      unit: 'x plain',
      target: '<= 1.2 x plain',
      met: ratio <= 1.2,
      raw: `24 hours, ${dayItems} trips, fleet ${FLEET_SIZE}, millisecond precision, a fresh token per request on every side, ${sameItems}: harvest median ${round3(median(a))} ms (NDJSON per hour, fsync and rename while the next hour is fetched, manifest), plain loop median ${round3(median(b))} ms (the same client's requestEndpoint + append to one file), ${ROUNDS} rotating rounds; against a bare SignJWT + fetch + res.json() loop (${round3(median(d))} ms): ${round3(fetchRatio)} x`,
    };
    const bookkeeping: ReportedFigure = {
      name: 'harvest: a day of trips vs a plain loop that also fsyncs each hour file',
      value: durableRatio,
      unit: 'x plain+fsync',
      target: '<= 1.2 x plain+fsync',
      met: durableRatio <= 1.2,
      raw: `harvest median ${round3(median(a))} ms, plain loop writing each hour to its own file with fsync and rename before the next request ${round3(median(c))} ms`,
    };
    const request = { env: sandbox.mds, pem: harvestPem, kid: harvestKey.kid, endpoint: 'telemetry' as const };
    const short = await runChild({ ...request, hours: 6 });
    const day = await runChild({ ...request, hours: 24 });
    const long = await runChild({ ...request, hours: 48 });
    const longer = await runChild({ ...request, hours: 96 });
    // Shorter runs end while V8 is still growing its heap towards its steady size (6 h always, 24 h in some runs:
    // 100 to 130 MB), so the growth is measured from 48 h on: twice the hours and items for the same peak when memory
    // does not grow with the range.
    const growth = longer.maxRssKb / long.maxRssKb;
    const mb = (run: HarvestChildReply) => `${run.items} items, peak RSS ${round3(run.maxRssKb / 1024)} MB`;
    const memory: ReportedFigure = {
      name: 'harvest: peak RSS of 96 h over 48 h of telemetry',
      value: growth,
      unit: 'x',
      target: '<= 1.2 x (flat in hours)',
      met: growth <= 1.2,
      raw: `6 h: ${mb(short)}; 24 h: ${mb(day)}; 48 h: ${mb(long)}; 96 h: ${mb(longer)} (each in its own process; 96 h over 24 h: ${round3(longer.maxRssKb / day.maxRssKb)} x, 96 h over 6 h: ${round3(longer.maxRssKb / short.maxRssKb)} x)`,
    };
    return [time, bookkeeping, memory];
  } finally {
    await sandbox.close();
  }
}

if (process.env.HARVEST_BENCH_CHILD === '1' && process.send) {
  process.once('message', (request: HarvestChildRequest) => {
    const credential = credentialFromPem('ES256', request.pem, request.kid);
    harvestOnce(request.env, credential, request.endpoint, request.hours).then(
      (run) => {
        const reply: HarvestChildReply = { items: run.items, maxRssKb: process.resourceUsage().maxRSS };
        process.send?.(reply, () => process.exit(0));
      },
      (err: unknown) => {
        console.error(err instanceof Error ? err.message : String(err));
        process.exit(1);
      },
    );
  });
}
