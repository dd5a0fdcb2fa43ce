import { ApiClient } from '../core/http';
import type { Environment } from '../core/environment';
import { IssueClock } from '../core/clock';
import { TokenIssuer } from '../core/auth';
import { maskKeyId } from '../core/base';
import { startSandbox } from '../sandbox/sandboxServer';
import type { CliIo } from './cliIo';
import { loadCredential, parse } from './options';
import { describeFailure, formatListing, indent } from './output';

/** The README's first command: everything end to end against a sandbox, with no real credentials. */
export async function demoCommand(args: string[], io: CliIo): Promise<number> {
  parse(args, {});
  const sandbox = await startSandbox({ fleetSize: 250, pageSize: 100 });
  try {
    io.out(`1. Started the local sandbox provider on ${sandbox.url}; it enforces the authentication rules of the spec.`);
    const credential = loadCredential({ credential: sandbox.demo.credentialFile }, io);
    io.out(`2. Loaded its demo External Organization credential: kid ${maskKeyId(credential.kid)}, iss ${credential.issuer}.`);
    const client = new ApiClient({ issuer: new TokenIssuer({ clock: new IssueClock({ precision: 'milliseconds' }) }) });
    let step = 3;
    for (const env of sandbox.environments) {
      const environment: Environment = { id: env.id, name: env.id, api: env.api, stage: env.stage, baseUrl: env.baseUrl };
      const status = env.id === 'mds-staging';
      const listing = await client.listVehicles(environment, credential, { allPages: true, query: { status } });
      const page = listing.pages[0];
      const claims = page.token?.claims;
      if (claims) io.out(`\n${step++}. ${env.id}${status ? ' (vehicle status)' : ''}: a fresh ES256 token per page (aud ${String(claims.aud)}, lifetime ${claims.exp - claims.iat} s, jti ${claims.jti.slice(0, 8)}…)`);
      io.out(indent(page.ok ? formatListing(listing, 5) : describeFailure(page)));
    }
    const mds = sandbox.environments.find((e) => e.id === 'mds-staging')!;
    const wrongAud: Environment = { id: 'wrong', name: 'wrong audience', api: 'mds', stage: 'staging', baseUrl: mds.baseUrl, audience: `${mds.baseUrl}/` };
    const refused = await client.listVehicles(wrongAud, credential);
    io.out(`\n${step}. A token whose aud has a trailing slash is refused, and the sandbox says which rule it broke:\n${indent(describeFailure(refused.pages[0]))}`);
    io.out(`\nNext: \`mobility-api sandbox\` keeps a sandbox running for your own requests.`);
    return 0;
  } finally {
    await sandbox.close();
  }
}
