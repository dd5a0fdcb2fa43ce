import { ApiClient } from '../../core/http';
import type { Environment } from '../../core/environment';
import { IssueClock, KeyedQueue } from '../../core/clock';
import type { Credential } from '../../core/auth';
import { TokenIssuer } from '../../core/auth';
import { maskKeyId } from '../../core/base';
import { GrpcSessions } from '../../core/grpc';
import { startSandbox } from '../../sandbox/sandboxServer';
import type { SandboxEnvironment } from '../../sandbox/sandboxServer';
import type { CliIo } from '../support/cliIo';
import { loadCredential, parse } from '../support/options';
import { describeFailure, indent } from '../support/output';
import { formatListing } from '../support/resultOutput';

function environmentOf(env: SandboxEnvironment): Environment {
  return { id: env.id, name: env.id, api: env.api, stage: env.stage, baseUrl: env.baseUrl };
}

/** The README's first command: everything end to end against a sandbox, with no real credentials. */
export async function demoCommand(args: string[], io: CliIo): Promise<number> {
  parse(args, {});
  const sandbox = await startSandbox({ fleetSize: 250, pageSize: 100 });
  try {
    io.out(
      `1. Started the local sandbox provider on ${sandbox.url}; it enforces the authentication rules of the spec.`,
    );
    const credential = loadCredential({ credential: sandbox.demo.credentialFile }, io);
    io.out(
      `2. Loaded its demo External Organization credential: kid ${maskKeyId(credential.kid)}, iss ${credential.issuer}.`,
    );
    // One issuer (one per-key clock) and one per-key queue for REST and gRPC alike, as the extension shares them.
    const issuer = new TokenIssuer({ clock: new IssueClock({ precision: 'milliseconds' }) });
    const queue = new KeyedQueue();
    const client = new ApiClient({ issuer, queue });
    let step = 3;
    let listed: { deviceId: string; step: number } | undefined;
    for (const env of sandbox.environments) {
      const environment = environmentOf(env);
      const status = env.id === 'mds-staging';
      const listing = await client.listVehicles(environment, credential, { allPages: true, query: { status } });
      const page = listing.pages[0];
      const claims = page.token?.claims;
      if (claims)
        io.out(
          `\n${step++}. ${env.id}${status ? ' (vehicle status)' : ''}: a fresh ES256 token per page (aud ${String(claims.aud)}, lifetime ${claims.exp - claims.iat} s, jti ${claims.jti.slice(0, 8)}…)`,
        );
      io.out(indent(page.ok ? formatListing(listing, 5) : describeFailure(page)));
      const first = (listing.items[0] as { device_id?: unknown } | undefined)?.device_id;
      if (status && typeof first === 'string') listed = { deviceId: first, step: step - 1 };
    }
    const mds = sandbox.environments.find((e) => e.id === 'mds-staging')!;
    if (mds.grpcTarget && listed) {
      io.out(
        `\n${step++}. ${mds.id} over gRPC (${mds.grpcTarget}): GetVehicle of the first vehicle listed in ${listed.step}, with a fresh ES256 token in the call's authorization metadata (the same audience, clock and queue as REST)`,
      );
      io.out(indent(await grpcCall(mds, listed.deviceId, credential, issuer, queue)));
    }
    const wrongAud: Environment = {
      id: 'wrong',
      name: 'wrong audience',
      api: 'mds',
      stage: 'staging',
      baseUrl: mds.baseUrl,
      audience: `${mds.baseUrl}/`,
    };
    const refused = await client.listVehicles(wrongAud, credential);
    io.out(
      `\n${step}. A token whose aud has a trailing slash is refused, and the sandbox says which rule it broke:\n${indent(describeFailure(refused.pages[0]))}`,
    );
    io.out(`\nNext: \`mobility-api sandbox\` keeps a sandbox running for your own requests.`);
    return 0;
  } finally {
    await sandbox.close();
  }
}

/** One GetVehicle on the environment's gRPC target, its schema by server reflection; the lines to print (no token). */
async function grpcCall(
  env: SandboxEnvironment,
  deviceId: string,
  credential: Credential,
  issuer: TokenIssuer,
  queue: KeyedQueue,
): Promise<string> {
  const sessions = new GrpcSessions();
  try {
    const method = 'mobility.sandbox.v1.VehicleService/GetVehicle';
    const result = await sessions.call(
      env.id,
      { target: env.grpcTarget!, plaintext: true },
      { environment: environmentOf(env), credential, issuer, queue },
      { method, messages: [{ device_id: deviceId }] },
    );
    const claims = result.token?.claims;
    const token = claims ? `token jti ${claims.jti.slice(0, 8)}…, iat ${claims.iat}` : 'no token';
    const vehicle = result.messages[0];
    const answer = vehicle
      ? `device_id ${String(vehicle.device_id)}, ${String(vehicle.vehicle_type)}`
      : result.status.message;
    return `${method}: status ${result.status.name}; ${answer}; ${token}; ${Math.round(result.timings.totalMs)} ms`;
  } finally {
    sessions.forget();
  }
}
