import assert from 'node:assert/strict';
import { createPrivateKey, randomUUID } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SignJWT } from 'jose';
import type { RunningSandbox, SandboxEnvironment } from '../../src/sandbox/sandboxServer';

/** One answer: status, headers, the text and the JSON body when it is JSON. */
export interface SandboxAnswer<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  text: string;
  body: T;
}

/** Signs fresh demo tokens for one sandbox with strictly increasing iats, on the sandbox's own clock. */
export class SandboxClient {
  private lastIat = 0;
  private readonly privateKey: KeyObject;
  readonly mds: SandboxEnvironment;

  constructor(
    private readonly sandbox: RunningSandbox,
    private readonly clock: () => number,
  ) {
    this.privateKey = createPrivateKey(readFileSync(sandbox.demo.privateKeyFile, 'utf8'));
    const mds = sandbox.environments.find((e) => e.id === 'mds-staging');
    assert.ok(mds);
    this.mds = mds;
  }

  async token(): Promise<string> {
    const iat = Math.max(this.clock() / 1000, this.lastIat + 0.001);
    this.lastIat = iat;
    const { kid, issuer } = this.sandbox.demo;
    return new SignJWT({ iss: issuer, aud: this.mds.baseUrl, iat, exp: Math.floor(iat) + 300, jti: randomUUID() })
      .setProtectedHeader({ alg: 'ES256', kid })
      .sign(this.privateKey);
  }

  /** GET a path of the MDS staging environment (or an absolute URL) with a fresh token. */
  async get<T = Record<string, unknown>>(pathOrUrl: string): Promise<SandboxAnswer<T>> {
    const url = pathOrUrl.startsWith('http') ? pathOrUrl : `${this.mds.baseUrl}${pathOrUrl}`;
    const res = await fetch(url, {
      headers: { Authorization: `Bearer ${await this.token()}`, Accept: 'application/vnd.mds+json;version=2.0' },
    });
    const text = await res.text();
    const json = /json/.test(res.headers.get('content-type') ?? '');
    return { status: res.status, headers: res.headers, text, body: (json ? JSON.parse(text) : undefined) as T };
  }
}

/** Asserts an MDS error body with this status and error code. */
export function assertMdsError(answer: SandboxAnswer<unknown>, status: number, error: string): void {
  assert.equal(answer.status, status, answer.text.slice(0, 400));
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
  const body = answer.body as { error?: unknown; error_description?: unknown; error_details?: unknown };
  assert.equal(body.error, error);
  assert.equal(typeof body.error_description, 'string');
  assert.ok(
    Array.isArray(body.error_details) && body.error_details.length >= 1,
    'error_details has at least one entry',
  );
}

export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** `YYYY-MM-DDTHH` of the hour `hoursBack` before the hour of `nowMs`. */
export function hourBefore(nowMs: number, hoursBack: number): string {
  return new Date(Math.floor(nowMs / 3_600_000) * 3_600_000 - hoursBack * 3_600_000).toISOString().slice(0, 13);
}
