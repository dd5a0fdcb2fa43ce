import { fork } from 'node:child_process';
import { createPrivateKey, generateKeyPairSync, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import type { Credential, SigningAlgorithm } from '../src/core/auth/credential';
import type { Environment } from '../src/core/environment/environment';
import { parseCredential } from '../src/core/auth/parseCredential';

/** The issuer of every benchmark key; `.invalid` so it can never be mistaken for a real one. */
export const BENCH_ISSUER = 'bench@bench.mobility-api.invalid';
export const BENCH_SA_EMAIL = 'bench-robot@sa.mobility-api.invalid';

/** An environment for minting only: nothing is sent there. */
export const MINTING_ENVIRONMENT: Environment = {
  id: 'bench',
  name: 'bench',
  api: 'mds',
  stage: 'staging',
  baseUrl: 'https://mds.bench.mobility-api.invalid',
};

/** A fresh EC P-256 private key as PKCS#8 PEM; generated per run, never written to disk. */
export function ecPem(): string {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
    type: 'pkcs8',
    format: 'pem',
  }) as string;
}

/** A fresh RSA 2048 private key as PKCS#8 PEM. */
export function rsaPem(): string {
  return generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
    type: 'pkcs8',
    format: 'pem',
  }) as string;
}

/** A service-account key file (spec 5.6) around `pem`. */
export function serviceAccountKeyFile(pem: string, kid: string): string {
  return JSON.stringify({
    type: 'service_account',
    project_id: 'bench',
    private_key_id: kid,
    private_key: pem,
    client_email: BENCH_SA_EMAIL,
    client_id: '1',
    auth_uri: 'https://auth.bench.mobility-api.invalid/auth',
    token_uri: 'https://auth.bench.mobility-api.invalid/token',
    auth_provider_x509_cert_url: 'https://auth.bench.mobility-api.invalid/certs',
    client_x509_cert_url: 'https://auth.bench.mobility-api.invalid/certs/robot',
  });
}

/** Reads a credential from PEM text the way a user's credential is read: through parseCredential. */
export function credentialFromPem(alg: SigningAlgorithm, pem: string, kid: string): Credential {
  if (alg === 'RS256')
    return parseCredential({ kind: 'service-account', keyFile: serviceAccountKeyFile(pem, kid) }).credential;
  return parseCredential({ kind: 'ec', type: 'external-org', privateKey: pem, kid, issuer: BENCH_ISSUER }).credential;
}

/** `count` credentials on freshly generated keys, kids `<prefix>-<i>`. */
export function makeCredentials(alg: SigningAlgorithm, count: number, prefix: string): Credential[] {
  return Array.from({ length: count }, (_, i) =>
    credentialFromPem(alg, alg === 'RS256' ? rsaPem() : ecPem(), `${prefix}-${i}`),
  );
}

/** The trust-file entry a sandbox needs to accept tokens of `credential`. */
export function trustEntryOf(credential: Credential): {
  kid: string;
  iss: string;
  type: Credential['type'];
  publicKey: unknown;
} {
  return {
    kid: credential.kid,
    iss: credential.issuer,
    type: credential.type,
    publicKey: credential.publicKey.export({ format: 'jwk' }),
  };
}

/** What a plain script needs to sign: no core types beyond the key itself. */
export interface PlainKey {
  alg: SigningAlgorithm;
  kid: string;
  issuer: string;
  privateKey: KeyObject;
}

/**
 * The plain alternative to the core: one `SignJWT` with the claims of spec 5.4/5.6 and the given
 * `iat`, no clock, no checks. Service-account tokens carry `sub` and `email` as the core's do.
 */
export function signPlain(key: PlainKey, audience: string, iat: number): Promise<string> {
  const claims: Record<string, unknown> = { iss: key.issuer, aud: audience, iat, exp: iat + 300, jti: randomUUID() };
  if (key.alg === 'RS256') {
    claims.sub = key.issuer;
    claims.email = key.issuer;
  }
  return new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' }).sign(key.privateKey);
}

/**
 * The smallest thing a plain script must do for spec 5.1 rule 6 with millisecond timestamps: an
 * `iat` of now, bumped one millisecond past the last one of the key when now has not moved on.
 */
export class PlainIatCounter {
  private readonly last = new Map<string, number>();

  next(kid: string): number {
    const ms = Math.max(Date.now(), (this.last.get(kid) ?? 0) + 1);
    this.last.set(kid, ms);
    return ms / 1000;
  }
}

/**
 * The body of a measuring child process (fleetChild.ts, grpcFleetChild.ts): on the parent's one message, load jose
 * and the signing path before any clock starts (on every side alike), run `measure`, and answer with its result and
 * the process's peak RSS; a failure is printed and exits 1.
 */
export function answerParentOnce<Request extends { pem: string }, Result extends object>(
  measure: (request: Request) => Promise<Result>,
): void {
  process.once('message', (request: Request) => {
    const run = async (): Promise<Result & { maxRssKb: number }> => {
      await signPlain(
        { alg: 'ES256', kid: 'warm-up', issuer: 'warm-up@bench.invalid', privateKey: createPrivateKey(request.pem) },
        'https://warm-up.invalid',
        Date.now() / 1000,
      );
      const result = await measure(request);
      return { ...result, maxRssKb: process.resourceUsage().maxRSS };
    };
    run().then(
      (reply) => process.send?.(reply, () => process.exit(0)),
      (err: unknown) => {
        console.error(err instanceof Error ? err.message : String(err));
        process.exit(1);
      },
    );
  });
}

/** Forks `script` (a bundle beside this one, see answerParentOnce), sends it `request` and waits for its one reply and exit 0. */
export function askChildOnce<Request extends { side: string }, Reply>(
  script: string,
  request: Request,
  what: string,
): Promise<Reply> {
  const child = fork(join(__dirname, script), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    let reply: Reply | undefined;
    child.once('message', (message: Reply) => (reply = message));
    child.once('error', reject);
    child.once('exit', (code) =>
      reply && code === 0
        ? resolve(reply)
        : reject(new Error(`The ${request.side} ${what} failed (exit code ${String(code)}).`)),
    );
    child.send(request);
  });
}
