import type { SandboxEnvironment } from '../src/sandbox/sandboxServer';
import { askChildOnce, credentialFromPem, ecPem, trustEntryOf } from './benchKeys';
import type { ReportedFigure } from './figures';
import { round3 } from './figures';
import { startSandboxProcess } from './sandboxProcess';
import { median, medianRatio } from './stats';

const FLEET_SIZE = 100_000;
/** The sandbox's largest page: 100 requests for the whole fleet. */
const PAGE_SIZE = 1000;
const ROUNDS = 4;

/** What fleet.ts sends a fleet child. The PEM is generated for this run and passed over IPC only. */
export interface FleetChildRequest {
  side: 'core' | 'plain' | 'idle' | 'core-without-text';
  env: SandboxEnvironment;
  pem: string;
  kid: string;
}

export interface FleetChildReply {
  ms: number;
  /** JSON bytes received, all pages. */
  bytes: number;
  vehicles: number;
  pages: number;
  /** Peak resident set size of the child, from `process.resourceUsage()`. */
  maxRssKb: number;
}

function runChild(request: FleetChildRequest): Promise<FleetChildReply> {
  return askChildOnce('fleetChild.js', request, 'fleet child');
}

const mb = (bytes: number) => `${round3(bytes / 1024 / 1024)} MB`;

/** 100,000 vehicles, all pages: time and peak RSS against the plain loop that keeps the same items. */
export async function fleetFigures(): Promise<ReportedFigure[]> {
  const corePem = ecPem();
  const plainPem = ecPem();
  const core = credentialFromPem('ES256', corePem, 'fleet-core');
  const plain = credentialFromPem('ES256', plainPem, 'fleet-plain');
  const sandbox = await startSandboxProcess({
    options: { fleetSize: FLEET_SIZE, pageSize: PAGE_SIZE, verifyTokens: true },
    trust: [trustEntryOf(core), trustEntryOf(plain)],
  });
  try {
    const coreRequest: FleetChildRequest = { side: 'core', env: sandbox.mds, pem: corePem, kid: core.kid };
    const plainRequest: FleetChildRequest = { side: 'plain', env: sandbox.mds, pem: plainPem, kid: plain.kid };
    const idle = await runChild({ ...coreRequest, side: 'idle' });
    // One unrecorded pass each warms the sandbox (its pages, its JIT) for both sides alike.
    await runChild(coreRequest);
    await runChild(plainRequest);
    const coreRuns: FleetChildReply[] = [];
    const plainRuns: FleetChildReply[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) {
        coreRuns.push(await runChild(coreRequest));
        plainRuns.push(await runChild(plainRequest));
      } else {
        plainRuns.push(await runChild(plainRequest));
        coreRuns.push(await runChild(coreRequest));
      }
    }
    const withoutText = await runChild({ ...coreRequest, side: 'core-without-text' });
    for (const run of [...coreRuns, ...plainRuns, withoutText]) {
      if (run.vehicles !== FLEET_SIZE)
        throw new Error(`A fleet listing returned ${run.vehicles} vehicles, not ${FLEET_SIZE}.`);
    }
    const timeRatio = medianRatio(
      coreRuns.map((r) => r.ms),
      plainRuns.map((r) => r.ms),
    );
    const jsonBytes = median(coreRuns.map((r) => r.bytes));
    const coreRss = median(coreRuns.map((r) => r.maxRssKb * 1024));
    const plainRss = median(plainRuns.map((r) => r.maxRssKb * 1024));
    // Against the plain loop that keeps the same parsed items, run by run: a Node client that keeps 100,000 parsed
    // vehicles cannot stay within a multiple of their JSON text (V8 objects take several times their text).
    const rssRatio = medianRatio(
      coreRuns.map((r) => r.maxRssKb),
      plainRuns.map((r) => r.maxRssKb),
    );
    return [
      {
        name: `full fleet, ${FLEET_SIZE.toLocaleString('en')} vehicles in ${coreRuns[0]?.pages ?? 0} pages through the client: time core / plain loop`,
        value: timeRatio,
        unit: 'x',
        target: '<= 1.2 x the plain loop',
        met: timeRatio <= 1.2,
        raw: `core ${round3(median(coreRuns.map((r) => r.ms)))} ms, plain SignJWT+fetch+res.json() loop ${round3(median(plainRuns.map((r) => r.ms)))} ms, ${ROUNDS} runs each, one child process per run (the ratio is the median of the paired runs, not the ratio of these medians)`,
      },
      {
        name: `full fleet, ${FLEET_SIZE.toLocaleString('en')} vehicles: peak RSS of the core client's process / the plain fetch+JSON.parse loop keeping the same items`,
        value: rssRatio,
        unit: 'x',
        target: '<= 1.1 x the plain loop',
        met: rssRatio <= 1.1,
        raw: `peak RSS core ${mb(coreRss)}, plain loop ${mb(plainRss)} (medians of ${ROUNDS} runs each; the figure is the median of the paired runs' ratios); JSON ${mb(jsonBytes)} (core ${round3(coreRss / jsonBytes)} x, plain ${round3(plainRss / jsonBytes)} x the JSON bytes); an idle Node child with the bundle loaded ${mb(idle.maxRssKb * 1024)}; core dropping each page's kept text in onPage ${mb(withoutText.maxRssKb * 1024)}`,
      },
    ];
  } finally {
    await sandbox.close();
  }
}
