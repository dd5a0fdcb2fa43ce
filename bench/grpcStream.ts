// Issue 22: 100,000 vehicles streamed by ListVehicles to parsed items, through the core against plain @grpc/grpc-js,
// and the same vehicles over gRPC against REST pages (each in a child process of its own: time and peak RSS).
import { GrpcSessions } from '../src/core/grpc';
import type { SandboxEnvironment } from '../src/sandbox/sandboxServer';
import {
  PlainIatCounter,
  askChildOnce,
  credentialFromPem,
  ecPem,
  makeCredentials,
  signPlain,
  trustEntryOf,
} from './benchKeys';
import type { ReportedFigure } from './figures';
import { round3 } from './figures';
import {
  LIST_VEHICLES,
  authOf,
  bearerMetadata,
  benchSigning,
  endpointOf,
  plainListVehicles,
  plainVehicleClient,
} from './grpcPlain';
import { startSandboxProcess } from './sandboxProcess';
import { alternate, median, medianRatio, nowMs } from './stats';

const FLEET_SIZE = 100_000;
/** REST's largest page: 100 requests for the whole fleet. */
const PAGE_SIZE = 1000;
const STREAM_ROUNDS = 6;
const CHILD_ROUNDS = 4;

/** The whole fleet streamed to parsed items: `GrpcSessions.call` (fresh token, every message decoded to JSON) against grpc-js + proto-loader. */
export async function grpcStreamFigure(): Promise<ReportedFigure> {
  const [coreKey, plainKey] = [
    ...makeCredentials('ES256', 1, 'stream-core'),
    ...makeCredentials('ES256', 1, 'stream-plain'),
  ];
  const sandbox = await startSandboxProcess({
    options: { fleetSize: FLEET_SIZE, pageSize: PAGE_SIZE, verifyTokens: true },
    trust: [trustEntryOf(coreKey), trustEntryOf(plainKey)],
  });
  const sessions = new GrpcSessions();
  const client = plainVehicleClient(endpointOf(sandbox.mds).target);
  try {
    const auth = authOf(sandbox.mds, coreKey, benchSigning());
    const iats = new PlainIatCounter();
    const check = (count: number, side: string) => {
      if (count !== FLEET_SIZE) throw new Error(`The ${side} stream returned ${count} vehicles, not ${FLEET_SIZE}.`);
    };
    const { a, b } = await alternate(
      STREAM_ROUNDS,
      1,
      async () => {
        const t0 = nowMs();
        const result = await sessions.call(sandbox.mds.id, endpointOf(sandbox.mds), auth, {
          method: LIST_VEHICLES,
          messages: [{}],
        });
        const ms = nowMs() - t0;
        if (result.status.code !== 0)
          throw new Error(`The core's ListVehicles ended ${result.status.name}: ${result.status.message}`);
        check(result.messages.length, 'core');
        return ms;
      },
      async () => {
        const t0 = nowMs();
        const token = await signPlain(plainKey, sandbox.mds.baseUrl, iats.next(plainKey.kid));
        const items = await plainListVehicles(client, bearerMetadata(token));
        const ms = nowMs() - t0;
        check(items.length, 'plain');
        return ms;
      },
    );
    const ratio = medianRatio(a, b);
    return {
      name: `gRPC stream, ${FLEET_SIZE.toLocaleString('en')} vehicles by ListVehicles to parsed items: core / plain grpc-js + proto-loader`,
      value: ratio,
      unit: 'x',
      target: '<= 1.1 x',
      met: ratio <= 1.1,
      raw: `core median ${round3(median(a))} ms, plain ${round3(median(b))} ms (a fresh token per stream on both sides, sandbox verifying, in its own process; ${STREAM_ROUNDS} alternating rounds after 1 warm-up, the figure the median of the per-round ratios)`,
    };
  } finally {
    sessions.forget();
    client.close();
    await sandbox.close();
  }
}

/** What grpcStream.ts sends a child. The PEM is generated for this run and passed over IPC only. */
export interface GrpcFleetChildRequest {
  side: 'grpc' | 'rest' | 'idle';
  env: SandboxEnvironment;
  pem: string;
  kid: string;
}

export interface GrpcFleetChildReply {
  ms: number;
  vehicles: number;
  /** For gRPC: the server reflection that loads the schema, part of `ms`. */
  schemaMs: number;
  /** Peak resident set size of the child, from `process.resourceUsage()`. */
  maxRssKb: number;
}

function runChild(request: GrpcFleetChildRequest): Promise<GrpcFleetChildReply> {
  return askChildOnce('grpcFleetChild.js', request, 'child');
}

const mb = (kb: number) => `${round3(kb / 1024)} MB`;

/** The same 100,000 vehicles over gRPC (one stream) and REST (100 pages of 1000 via ApiClient), each run in a fresh process. */
export async function grpcVsRestFigures(): Promise<ReportedFigure[]> {
  const pem = ecPem();
  const key = credentialFromPem('ES256', pem, 'grpc-vs-rest');
  const sandbox = await startSandboxProcess({
    options: { fleetSize: FLEET_SIZE, pageSize: PAGE_SIZE, verifyTokens: true },
    trust: [trustEntryOf(key)],
  });
  try {
    const grpcRequest: GrpcFleetChildRequest = { side: 'grpc', env: sandbox.mds, pem, kid: key.kid };
    const restRequest: GrpcFleetChildRequest = { ...grpcRequest, side: 'rest' };
    const idle = await runChild({ ...grpcRequest, side: 'idle' });
    // One unrecorded pass each warms the sandbox for both sides alike.
    await runChild(grpcRequest);
    await runChild(restRequest);
    const grpcRuns: GrpcFleetChildReply[] = [];
    const restRuns: GrpcFleetChildReply[] = [];
    for (let round = 0; round < CHILD_ROUNDS; round++) {
      const order = round % 2 === 0 ? [grpcRequest, restRequest] : [restRequest, grpcRequest];
      for (const request of order) (request.side === 'grpc' ? grpcRuns : restRuns).push(await runChild(request));
    }
    for (const run of [...grpcRuns, ...restRuns]) {
      if (run.vehicles !== FLEET_SIZE) throw new Error(`A child listed ${run.vehicles} vehicles, not ${FLEET_SIZE}.`);
    }
    const timeRatio = medianRatio(
      grpcRuns.map((r) => r.ms),
      restRuns.map((r) => r.ms),
    );
    const rssRatio = medianRatio(
      grpcRuns.map((r) => r.maxRssKb),
      restRuns.map((r) => r.maxRssKb),
    );
    const each = `${CHILD_ROUNDS} runs each, alternating, one child process per run (the figure is the median of the paired runs' ratios)`;
    return [
      {
        name: `${FLEET_SIZE.toLocaleString('en')} vehicles through the core, fresh process: one gRPC stream / REST in ${FLEET_SIZE / PAGE_SIZE} pages of ${PAGE_SIZE}: time`,
        value: timeRatio,
        unit: 'x',
        target: '<= 1 x REST',
        met: timeRatio <= 1,
        raw: `gRPC ${round3(median(grpcRuns.map((r) => r.ms)))} ms (of which server reflection for the schema ${round3(median(grpcRuns.map((r) => r.schemaMs)))} ms), REST ${round3(median(restRuns.map((r) => r.ms)))} ms; ${each}`,
      },
      {
        name: `${FLEET_SIZE.toLocaleString('en')} vehicles through the core, every item kept: one gRPC stream / REST pages: peak RSS`,
        value: rssRatio,
        unit: 'x',
        target: '<= 1 x REST',
        met: rssRatio <= 1,
        raw: `peak RSS gRPC ${mb(median(grpcRuns.map((r) => r.maxRssKb)))}, REST ${mb(median(restRuns.map((r) => r.maxRssKb)))}; an idle child with the same bundle loaded ${mb(idle.maxRssKb)}; ${each}`,
      },
    ];
  } finally {
    await sandbox.close();
  }
}
