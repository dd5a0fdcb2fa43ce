import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ApiClient } from '../../src/core/http/apiClient';
import type { Credential } from '../../src/core/auth/credential';
import type { Environment } from '../../src/core/environment/environment';
import type { HarvestManifest } from '../../src/core/harvest/harvestManifest';
import { IssueClock } from '../../src/core/clock/issueClock';
import { parseCredential } from '../../src/core/auth/parseCredential';
import { TokenIssuer } from '../../src/core/auth/tokenIssuer';
import type { RunningSandbox } from '../../src/sandbox/sandboxServer';
import { waitFor } from './support/waitUntil';

/** The MDS staging environment of a sandbox, as the core sees it. */
export function mdsEnvironment(sandbox: RunningSandbox): Environment {
  const env = sandbox.environments.find((e) => e.id === 'mds-staging');
  assert.ok(env);
  return {
    id: env.id,
    name: env.id,
    api: 'mds',
    stage: 'staging',
    baseUrl: env.baseUrl,
    headers: { Accept: 'application/vnd.mds+json;version=2.0' },
  };
}

/** The sandbox's demo credential, parsed by the core. */
export function demoCredential(sandbox: RunningSandbox): Credential {
  const { demo } = sandbox;
  return parseCredential({
    kind: 'ec',
    type: 'external-org',
    kid: demo.kid,
    issuer: demo.issuer,
    privateKey: fs.readFileSync(demo.privateKeyFile, 'utf8'),
  }).credential;
}

/** A client at millisecond precision on `now` (the sandbox's clock). */
export function clientOn(now: () => number): ApiClient {
  return new ApiClient({ issuer: new TokenIssuer({ clock: new IssueClock({ precision: 'milliseconds', now }) }) });
}

/** Every line of every hour file of a folder, parsed, with the file it came from; fails on a line that is not JSON. */
export function readHarvest(outDir: string, endpoint: string): { hour: string; item: Record<string, unknown> }[] {
  const dir = path.join(outDir, endpoint);
  const out: { hour: string; item: Record<string, unknown> }[] = [];
  for (const name of fs.readdirSync(dir).sort()) {
    assert.match(name, /^\d{4}-\d{2}-\d{2}T\d{2}\.ndjson$/, `only finished hour files are left in ${dir}`);
    const text = fs.readFileSync(path.join(dir, name), 'utf8');
    if (text === '') continue;
    assert.ok(text.endsWith('\n'), `${name} ends with a newline`);
    for (const line of text.slice(0, -1).split('\n'))
      out.push({ hour: name.slice(0, 13), item: JSON.parse(line) as Record<string, unknown> });
  }
  return out;
}

export function readManifest(outDir: string): HarvestManifest {
  return JSON.parse(fs.readFileSync(path.join(outDir, 'manifest.json'), 'utf8')) as HarvestManifest;
}

/** Files anywhere under `dir` whose name says they are unfinished. */
export function tempFilesUnder(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.tmp'));
}

/** Resolves once `check` returns true, polling every 20 ms, or fails after `timeoutMs`. */
export async function until(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  await waitFor(what, check, { timeoutMs, intervalMs: 20 });
}
