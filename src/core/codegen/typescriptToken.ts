// The signing part of every TypeScript program, REST or gRPC: the key read from MOBILITY_API_KEY_FILE
// and checked, the per-key clock shared with every signer (spec 5.1 rule 6: the protocol of
// sharedClockLines and docs/copy-as-code.md, its lock taken with proper-lockfile as the extension
// does, and one queue across async tasks), the token's claims, the worker count, and errors in one line.
import type { CodeProgram } from './codeRequest';
import {
  CLOCK_LOCK_REFRESH_SECONDS,
  CLOCK_LOCK_STALE_SECONDS,
  CLOCK_LOCK_WAIT_SECONDS,
  KEY_FILE_VARIABLE,
  KEY_ID_VARIABLE,
  sharedClockLines,
  STATE_DIR_VARIABLE,
  WORKERS_VARIABLE,
} from './codeRequest';

const str = (text: string) => JSON.stringify(text);
const specOf = (type: CodeProgram['credential']['type']) =>
  type === 'service-account' ? '5.6' : type === 'iam' ? '5.5' : '5.4';

/** The file name Copy as Code offers for a TypeScript program (CODE_LANGUAGE_INFO), used in the run instructions. */
export const TYPESCRIPT_FILE = 'mobilityApiRequest.ts';

/**
 * The header lines that say how to install what the program needs and run it with no prompt (cron
 * included): `npx tsx` without an install asks first, and outside a terminal gives up.
 */
export function typescriptRunLines(packages: string[]): string[] {
  return [
    `Needs Node 20+. Saved as ${TYPESCRIPT_FILE} in a folder of its own, it is set up and run`,
    'with these commands, with no prompt (from cron too: cd to the folder first, node on PATH):',
    `    printf '{ "type": "module", "private": true }\\n' > package.json`,
    `    npm install --no-fund --no-audit ${['tsx', ...packages].join(' ')}`,
    `    node_modules/.bin/tsx ${TYPESCRIPT_FILE}`,
    'Or compile it with tsc as an ES module (add typescript, @types/node, @types/proper-lockfile).',
  ];
}

/** What the shared clock covers and what it does not, for the header: the text every language shares. */
export function typescriptClockLines(): string[] {
  return sharedClockLines();
}

/** The node: and package imports of the signing part, before the program's own. */
export function typescriptImports(): string[] {
  return [
    'import type { KeyObject } from "node:crypto";',
    'import { createHash, createPrivateKey, randomUUID } from "node:crypto";',
    'import * as fs from "node:fs";',
    'import { isAbsolute, join } from "node:path";',
  ];
}

/** `AUDIENCE` and `LIFETIME`, after `BASE_URL` is set. */
export function typescriptClaimConstants(program: CodeProgram): string[] {
  return [
    `const AUDIENCE = ${Array.isArray(program.audience) ? '[BASE_URL]' : 'BASE_URL'}; // spec 5.3: the environment's base URL`,
    `const LIFETIME = ${program.lifetimeSeconds}; // spec 5.1 rule 5: 60 to 3600 seconds`,
  ];
}

/**
 * The key, key id and issuer, read from the environment (spec 5.7) and checked; the clock file; the
 * queue; `fail`, `required`, `lockClock`, `signToken` and `workerCount`.
 */
export function typescriptKeyLines(program: CodeProgram): string[] {
  const { credential } = program;
  const serviceAccount = credential.type === 'service-account';
  const keyKind = serviceAccount ? 'an RSA private key' : 'an EC P-256 private key';
  return [
    ...(serviceAccount
      ? [
          `const KEY_FILE = required(${str(KEY_FILE_VARIABLE)}, "the path of your service-account key file (JSON)");`,
          'const { PRIVATE_KEY, KEY_ID, ISSUER } = readServiceAccount(KEY_FILE);',
        ]
      : [
          `const KEY_FILE = required(${str(KEY_FILE_VARIABLE)}, "the path of your EC P-256 private key (PEM)");`,
          'const PRIVATE_KEY = privateKeyOf(readKeyFile(KEY_FILE));',
          `const KEY_ID = required(${str(KEY_ID_VARIABLE)}, "the key id (kid) your public key is registered under");`,
          `const ISSUER = ${str(credential.issuer ?? '')};`,
        ]),
    '',
    '// Spec 5.1 rule 6 across every signer of the key: the state folder is the first of these',
    '// variables set, with the folder under it (every signer alike); the clock file is named by a',
    '// hash of the key id (a key id is a secret).',
    'const STATE_DIR_RULE = [',
    `  ["${STATE_DIR_VARIABLE}", ""],`,
    '  ["XDG_STATE_HOME", "mobility-api"],',
    '  ["LOCALAPPDATA", "mobility-api"],',
    '  ["HOME", join(".local", "state", "mobility-api")],',
    '] as const;',
    'const CLOCK_DIR = clockDir();',
    'const CLOCK_FILE = join(',
    '  CLOCK_DIR,',
    '  "iat-" + createHash("sha256").update(KEY_ID, "utf8").digest("hex").slice(0, 32),',
    ');',
    'let queue: Promise<unknown> = Promise.resolve();',
    '',
    '/** Ends the run with one line that says what to fix, and exit status 1. */',
    'function fail(message: string): never {',
    '  console.error(message);',
    '  process.exit(1);',
    '}',
    '',
    'function required(name: string, what: string): string {',
    '  const value = process.env[name];',
    '  if (!value) fail(`Set ${name} to ${what}.`);',
    '  return value;',
    '}',
    '',
    'function readKeyFile(file: string): string {',
    '  try {',
    '    return fs.readFileSync(file, "utf8");',
    '  } catch (err) {',
    `    fail(\`Cannot read ${KEY_FILE_VARIABLE} (\${file}): \${(err as Error).message}\`);`,
    '  }',
    '}',
    '',
    `/** The private key of a PEM; ${keyKind}, or the run ends saying so. */`,
    'function privateKeyOf(pem: string): KeyObject {',
    '  let key: KeyObject;',
    '  try {',
    '    key = createPrivateKey(pem);',
    '  } catch {',
    `    fail(\`${KEY_FILE_VARIABLE} (\${KEY_FILE}) holds no private key in PEM.\`);`,
    '  }',
    ...(serviceAccount
      ? ['  if (key.asymmetricKeyType !== "rsa") {']
      : ['  if (key.asymmetricKeyType !== "ec" || key.asymmetricKeyDetails?.namedCurve !== "prime256v1") {']),
    '    const kind = key.asymmetricKeyDetails?.namedCurve ?? key.asymmetricKeyType;',
    `    fail(\`${KEY_FILE_VARIABLE} (\${KEY_FILE}) holds a key of type \${kind}; ${credential.alg} needs ${keyKind} (spec ${specOf(credential.type)}).\`);`,
    '  }',
    '  return key;',
    '}',
    ...(serviceAccount
      ? [
          '',
          "/** Spec 5.6: the kid is the key file's private_key_id, iss (and sub, email) its client_email. */",
          'function readServiceAccount(file: string) {',
          '  let key: Record<string, unknown> = {};',
          '  try {',
          '    key = JSON.parse(readKeyFile(file));',
          '  } catch {',
          '    // said below: the fields are missing',
          '  }',
          '  const fields = ["private_key", "private_key_id", "client_email"] as const;',
          '  const missing = fields.filter((name) => typeof key?.[name] !== "string");',
          '  if (missing.length > 0) {',
          `    fail(\`${KEY_FILE_VARIABLE} (\${file}) is not a service-account key file: no \${missing.join(", ")}.\`);`,
          '  }',
          '  return {',
          '    PRIVATE_KEY: privateKeyOf(key.private_key as string),',
          '    KEY_ID: key.private_key_id as string,',
          '    ISSUER: key.client_email as string,',
          '  };',
          '}',
        ]
      : []),
    '',
    'function clockDir(): string {',
    '  for (const [name, under] of STATE_DIR_RULE) {',
    '    const value = process.env[name];',
    '    if (!value) continue;',
    `    if (!isAbsolute(value)) fail(\`\${name} is "\${value}", not an absolute path: set ${STATE_DIR_VARIABLE}.\`);`,
    '    return join(value, under, "clock");',
    '  }',
    `  fail("Set ${STATE_DIR_VARIABLE} to a folder for the clock file: no HOME is set.");`,
    '}',
    '',
    '/**',
    ' * Takes the lock every signer of this key takes (the protocol in the header), waiting while',
    ' * another signer (or worker) holds it; resolves to its release. Held until the answer to the',
    " * token's request has begun. proper-lockfile refreshes a lock with a stat, then a utimes; the",
    ' * file system it is given here skips a refresh once the release has begun, and the release waits',
    " * for one under way: a late refresh would reach the next holder's lock, which would count as lost.",
    ' */',
    'async function lockClock(): Promise<() => Promise<void>> {',
    '  let releasing = false;',
    '  let refreshing = Promise.resolve();',
    '  const lockFs = {',
    '    ...fs,',
    '    utimes(file: string, atime: Date, mtime: Date, done: (err: Error | null) => void) {',
    '      if (releasing) return done(null);',
    '      refreshing = new Promise<void>((settled) =>',
    '        fs.utimes(file, atime, mtime, (err) => {',
    '          settled();',
    '          done(err);',
    '        }),',
    '      );',
    '    },',
    '  };',
    '  try {',
    '    fs.mkdirSync(CLOCK_DIR, { recursive: true, mode: 0o700 });',
    '    const release = await lock(CLOCK_FILE, {',
    '      fs: lockFs,',
    '      realpath: false, // the file need not exist yet',
    `      stale: ${CLOCK_LOCK_STALE_SECONDS * 1000}, // the lock of a signer that died is taken over after ${CLOCK_LOCK_STALE_SECONDS} s`,
    `      update: ${CLOCK_LOCK_REFRESH_SECONDS * 1000}, // refreshed every ${CLOCK_LOCK_REFRESH_SECONDS} s while held`,
    `      retries: { retries: ${CLOCK_LOCK_WAIT_SECONDS * 10}, minTimeout: 10, maxTimeout: 100 }, // about ${CLOCK_LOCK_WAIT_SECONDS} s`,
    '      onCompromised: (err) => fail(`The lock on ${CLOCK_FILE} was lost: ${err.message}`),',
    '    });',
    '    return async () => {',
    '      releasing = true;',
    '      await refreshing;',
    '      await release();',
    '    };',
    '  } catch (err) {',
    '    if ((err as NodeJS.ErrnoException).code === "ELOCKED") {',
    `      fail(\`\${CLOCK_FILE}.lock was held for ${CLOCK_LOCK_WAIT_SECONDS} s; if no signer runs, remove it.\`);`,
    '    }',
    `    fail(\`Cannot lock \${CLOCK_FILE} (set ${STATE_DIR_VARIABLE} to a folder you can write): \${(err as Error).message}\`);`,
    '  }',
    '}',
    '',
    '/** The last iat issued with this key by any signer, 0 for none. */',
    'function lastIssued(): number {',
    '  let text: string;',
    '  try {',
    '    text = fs.readFileSync(CLOCK_FILE, "ascii").trim();',
    '  } catch (err) {',
    '    if ((err as NodeJS.ErrnoException).code === "ENOENT") return 0;',
    '    throw err;',
    '  }',
    '  // Damaged from outside: counts as now (no signer writes a time ahead of its clock).',
    '  return /^[0-9]+(\\.[0-9]+)?$/.test(text) ? Number(text) : Date.now() / 1000;',
    '}',
    '',
    '/** A fresh token; called with the key locked. */',
    'async function signToken(): Promise<string> {',
    '  const lastIat = lastIssued();',
    '  let iat = Math.floor(Date.now() / 1000);',
    '  while (iat <= lastIat) {',
    '    // wait for the next second, never reuse one',
    '    await new Promise((resolve) => setTimeout(resolve, (Math.floor(lastIat) + 1) * 1000 - Date.now()));',
    '    iat = Math.floor(Date.now() / 1000);',
    '  }',
    '  // Replaced whole: a reader sees the old time or the new one.',
    '  fs.writeFileSync(`${CLOCK_FILE}.${process.pid}.tmp`, `${iat}\\n`, { mode: 0o600 });',
    '  fs.renameSync(`${CLOCK_FILE}.${process.pid}.tmp`, CLOCK_FILE);',
    '  return new SignJWT({',
    '    iss: ISSUER,',
    ...(serviceAccount
      ? ['    sub: ISSUER, // spec 5.6: sub and email are the client_email', '    email: ISSUER,']
      : []),
    '    aud: AUDIENCE,',
    '    iat,',
    '    exp: iat + LIFETIME,',
    '    jti: randomUUID(), // spec 5.1 rule 7: a new random UUID per token',
    '  })',
    `    .setProtectedHeader({ alg: "${credential.alg}", kid: KEY_ID }) // spec ${specOf(credential.type)}`,
    '    .sign(PRIVATE_KEY);',
    '}',
    '',
    'function workerCount(): number {',
    `  const text = process.env.${WORKERS_VARIABLE} || "1";`,
    '  if (!/^[0-9]+$/.test(text) || Number(text) < 1 || Number(text) > 100) {',
    `    fail(\`${WORKERS_VARIABLE} must be a whole number from 1 to 100, not "\${text}".\`);`,
    '  }',
    '  return Number(text);',
    '}',
  ];
}
