// `mobility-api`: the command-line front end over the same core as the extension, for scripts and curl.
// Exit codes: 0 success, 1 the request or check failed (network, non-2xx, bad signature), 2 bad input.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import type { Credential, CredentialInput, IssuerDomains } from './core/credential';
import { NO_DOMAINS } from './core/credential';
import type { ApiKind, Environment } from './core/environment';
import { ApiClient } from './core/apiClient';
import type { HttpExchange, VehicleListing } from './core/apiClient';
import { decodeJwt, stripTokenText } from './core/decodeJwt';
import type { DecodedToken } from './core/decodeJwt';
import { isMobilityError, MobilityError } from './core/errors';
import { defaultStateDir } from './core/fileClockStore';
import { openSharedClock, stateDirOption } from './core/sharedClock';
import type { SharedKeyQueue } from './core/sharedKeyQueue';
import { IssueClock } from './core/issueClock';
import { lintToken } from './core/lintToken';
import type { LintFinding } from './core/lintToken';
import { assertCredentialForApi, looksLikeServiceAccountKeyFile, parseCredential } from './core/parseCredential';
import { parsePublicKey } from './core/publicKey';
import { redactSecrets } from './core/redact';
import { TokenIssuer } from './core/tokenIssuer';
import { verifyTokenSignature } from './core/verifySignature';
import type { SignatureCheck } from './core/verifySignature';
import { parseTrustFile } from './sandbox/trustStore';
import { startSandbox } from './sandbox/sandboxServer';
import type { RunningSandbox } from './sandbox/sandboxServer';

const USAGE = `mobility-api: sign tokens for the MDS Provider and MaaS APIs, read them, list vehicles, run a local sandbox.

Usage:
  mobility-api token    <credential> --aud <base-url> [--api mds|maas] [--lifetime <s>] [--aud-list]
  mobility-api decode   <jwt | -> [--json] [--public-key <file>] [--aud <base-url>]... [--strict]
  mobility-api vehicles --base-url <url> --api mds|maas <credential> [--status] [--device-id <id>]
                        [--all-pages] [--max-pages <n>] [--header 'Name: value']... [--timeout <s>] [--json]
  mobility-api sandbox  [--port <n>] [--fleet <n>] [--page-size <n>] [--trust <file>]... [--demo-dir <dir>] [--json]
  mobility-api demo     start a sandbox, sign a token with its demo credential, list vehicles, stop

<credential> is one of:
  --private-key <pem|jwk file> --kid <id> --iss <email> [--type external-org|iam]
  --key-file <service-account.json>
  --credential <demo-credential.json>        (as written by \`mobility-api sandbox\`)

Common options:
  --lifetime <s>            token lifetime, 60..3600 (default 300)
  --precision seconds|milliseconds   iat precision (default seconds: at most one token per key per second)
  --state-dir <dir>         where the per-key issue clock is kept (default: ${defaultStateDir()})
  --external-org-domain, --iam-domain, --service-account-domain <domain>
                            e-mail domains that identify the credential types (repeatable; also the
                            environment variables MOBILITY_API_EXTERNAL_ORG_DOMAINS, ..._IAM_DOMAINS,
                            ..._SERVICE_ACCOUNT_DOMAINS, comma-separated)
`;

const CREDENTIAL_OPTIONS = {
  'private-key': { type: 'string' },
  kid: { type: 'string' },
  iss: { type: 'string' },
  type: { type: 'string' },
  'key-file': { type: 'string' },
  credential: { type: 'string' },
  'external-org-domain': { type: 'string', multiple: true },
  'iam-domain': { type: 'string', multiple: true },
  'service-account-domain': { type: 'string', multiple: true },
  lifetime: { type: 'string' },
  precision: { type: 'string' },
  'state-dir': { type: 'string' },
  'aud-list': { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

type Values = Record<string, string | boolean | string[] | undefined>;

/** Output streams, injectable so that tests can run the CLI in-process. */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  readStdin: () => Promise<string>;
  env: NodeJS.ProcessEnv;
  /** Resolves when the user asks a long-running command (sandbox) to stop. */
  untilStopped: () => Promise<void>;
}

/** Runs one CLI invocation and returns its exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'token':
        return await tokenCommand(rest, io);
      case 'decode':
        return await decodeCommand(rest, io);
      case 'vehicles':
        return await vehiclesCommand(rest, io);
      case 'sandbox':
        return await sandboxCommand(rest, io);
      case 'demo':
        return await demoCommand(rest, io);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.out(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new MobilityError('USAGE', `Unknown command "${command}". Run \`mobility-api help\` for the commands.`);
    }
  } catch (err) {
    return reportError(err, io);
  }
}

function reportError(err: unknown, io: CliIo): number {
  if (isMobilityError(err)) {
    io.err(`mobility-api: ${err.message}`);
    return err.code.startsWith('HTTP_') || err.code === 'SIGNATURE_INVALID' ? 1 : 2;
  }
  const code = (err as { code?: string })?.code ?? '';
  if (code.startsWith('ERR_PARSE_ARGS')) {
    io.err(`mobility-api: ${(err as Error).message.split('\n')[0]} Run \`mobility-api help\` for the options.`);
    return 2;
  }
  io.err(`mobility-api: unexpected failure: ${(err as Error)?.message ?? String(err)}`);
  if (io.env.MOBILITY_API_DEBUG) io.err(String((err as Error)?.stack));
  return 1;
}

const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const;

function parse<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O, allowPositionals = false) {
  return parseArgs({ args, options: { ...options, ...HELP_OPTION }, allowPositionals, strict: true });
}

// ---------------------------------------------------------------- credentials and clock

function readFile(file: string, flag: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message;
    throw new MobilityError('FILE_READ_FAILED', `Cannot read the ${flag} file ${file}: ${reason}.`);
  }
}

function domainsFrom(values: Values, env: NodeJS.ProcessEnv): IssuerDomains {
  const list = (flag: string, variable: string) => [
    ...((values[flag] as string[] | undefined) ?? []),
    ...(env[variable] ?? '').split(',').map((d) => d.trim()).filter(Boolean),
  ];
  return {
    ...NO_DOMAINS,
    'external-org': list('external-org-domain', 'MOBILITY_API_EXTERNAL_ORG_DOMAINS'),
    iam: list('iam-domain', 'MOBILITY_API_IAM_DOMAINS'),
    'service-account': list('service-account-domain', 'MOBILITY_API_SERVICE_ACCOUNT_DOMAINS'),
  };
}

/** The credential named by the flags, validated by the core. Warnings go to stderr. */
function loadCredential(values: Values, io: CliIo, api?: ApiKind): Credential {
  const domains = domainsFrom(values, io.env);
  const given = ['private-key', 'key-file', 'credential'].filter((f) => values[f] !== undefined);
  if (given.length === 0) {
    throw new MobilityError('USAGE', 'Give a credential: --private-key <file> with --kid and --iss, or --key-file <service-account.json>, or --credential <demo-credential.json>.');
  }
  if (given.length > 1) throw new MobilityError('USAGE', `Give one credential, not ${given.map((f) => `--${f}`).join(' and ')}.`);
  let input: CredentialInput;
  if (values['key-file'] !== undefined) {
    input = { kind: 'service-account', keyFile: readFile(values['key-file'] as string, '--key-file') };
  } else if (values.credential !== undefined) {
    input = credentialFileInput(values.credential as string);
  } else {
    const keyText = readFile(values['private-key'] as string, '--private-key');
    if (looksLikeServiceAccountKeyFile(keyText)) {
      input = { kind: 'service-account', keyFile: keyText };
    } else {
      const type = values.type as string | undefined;
      if (type !== undefined && type !== 'external-org' && type !== 'iam') {
        throw new MobilityError('USAGE', `--type must be external-org or iam, not "${type}" (a service account is given with --key-file).`);
      }
      if (values.kid === undefined) throw new MobilityError('USAGE', '--private-key needs --kid <key id>, the key identifier delivered with the credentials.');
      if (values.iss === undefined) throw new MobilityError('USAGE', '--private-key needs --iss <email>, the e-mail address delivered with the credentials.');
      input = { kind: 'ec', type, privateKey: keyText, kid: values.kid as string, issuer: values.iss as string };
    }
  }
  const { credential, warnings } = parseCredential(input, { domains });
  // A credential the API refuses is an error, not a warning followed by an error.
  if (api) assertCredentialForApi(credential, api);
  for (const w of warnings) io.err(`mobility-api: warning: ${w}`);
  return credential;
}

/** `demo-credential.json`: `{ type, kid, issuer, privateKeyFile }`, the key file relative to it. */
function credentialFileInput(file: string): CredentialInput {
  const text = readFile(file, '--credential');
  let data: { type?: unknown; kid?: unknown; issuer?: unknown; privateKeyFile?: unknown };
  try {
    data = JSON.parse(text) as typeof data;
  } catch (err) {
    throw new MobilityError('USAGE', `The --credential file ${file} is not JSON (${(err as Error).message}).`);
  }
  if (typeof data !== 'object' || data === null || typeof data.kid !== 'string' || typeof data.issuer !== 'string' || typeof data.privateKeyFile !== 'string') {
    throw new MobilityError('USAGE', `The --credential file ${file} must hold "kid", "issuer" and "privateKeyFile", as the demo-credential.json that \`mobility-api sandbox\` writes.`);
  }
  const type = data.type === 'iam' ? 'iam' : data.type === 'external-org' ? 'external-org' : undefined;
  const keyFile = path.resolve(path.dirname(file), data.privateKeyFile);
  return { kind: 'ec', type, kid: data.kid, issuer: data.issuer, privateKey: readFile(keyFile, 'private key') };
}

/** The issuer on the clock shared with every window and script (--state-dir), and the matching request queue. */
function issuerFrom(values: Values, io: CliIo): { issuer: TokenIssuer; queue: SharedKeyQueue } {
  const precision = (values.precision as string | undefined) ?? 'seconds';
  if (precision !== 'seconds' && precision !== 'milliseconds') {
    throw new MobilityError('USAGE', `--precision must be seconds or milliseconds, not "${precision}".`);
  }
  const shared = openSharedClock(stateDirOption(values['state-dir'] as string | undefined, io.env), { onProblem: (m) => io.err(`mobility-api: warning: ${m}`) });
  const clock = new IssueClock({ precision: precision, store: shared.store });
  return { issuer: new TokenIssuer({ clock, lifetimeSeconds: lifetimeFrom(values) }), queue: shared.queue };
}

function lifetimeFrom(values: Values): number | undefined {
  const text = values.lifetime as string | undefined;
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text.trim())) throw new MobilityError('LIFETIME_OUT_OF_RANGE', `--lifetime must be a whole number of seconds from 60 to 3600, not "${text}".`);
  return Number(text);
}

function apiFrom(values: Values, required: boolean): ApiKind {
  const api = values.api as string | undefined;
  if (api === undefined && !required) return 'mds';
  if (api !== 'mds' && api !== 'maas') throw new MobilityError('USAGE', `--api must be mds or maas${api === undefined ? '' : `, not "${api}"`}.`);
  return api;
}

function environmentFrom(baseUrl: string | undefined, flag: string, api: ApiKind, values: Values, headers: Record<string, string> = {}): Environment {
  if (!baseUrl) throw new MobilityError('USAGE', `${flag} <base-url> is required: the base address of the environment, which is also the token's audience (spec 5.3).`);
  return { id: 'cli', name: baseUrl, api, stage: 'custom', baseUrl, audienceAsList: values['aud-list'] === true, headers };
}

// ---------------------------------------------------------------- token

async function tokenCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parse(args, { ...CREDENTIAL_OPTIONS, aud: { type: 'string' }, api: { type: 'string' } });
  if (values.help) return printUsage(io);
  const api = apiFrom(values, false);
  const credential = loadCredential(values, io, api);
  const env = environmentFrom(values.aud, '--aud', api, values);
  const issued = await issuerFrom(values, io).issuer.issue(credential, env);
  io.out(issued.token);
  return 0;
}

// ---------------------------------------------------------------- decode

async function decodeCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(
    args,
    { json: { type: 'boolean' }, 'public-key': { type: 'string' }, aud: { type: 'string', multiple: true }, strict: { type: 'boolean' }, ...pick(CREDENTIAL_OPTIONS, ['external-org-domain', 'iam-domain', 'service-account-domain']) },
    true,
  );
  if (values.help) return printUsage(io);
  if (positionals.length > 1) throw new MobilityError('USAGE', 'decode takes one token (or - to read it from standard input).');
  const text = positionals[0] === undefined || positionals[0] === '-' ? await io.readStdin() : positionals[0];
  const result = decodeJwt(text);
  if (!result.ok) {
    if (values.json) io.out(JSON.stringify({ ok: false, reason: result.reason, code: result.code }));
    else io.err(`mobility-api: not a JWT: ${result.reason}`);
    return 1;
  }
  const findings = lintToken(result.token, { now: Date.now(), domains: domainsFrom(values, io.env), knownAudiences: values.aud });
  let signature: SignatureCheck | undefined;
  if (values['public-key']) signature = await verifyTokenSignature(stripTokenText(text), parsePublicKey(readFile(values['public-key'], '--public-key')));
  if (values.json) {
    io.out(JSON.stringify({ ok: true, header: result.token.header, payload: result.token.payload, times: result.token.times, lifetimeSeconds: result.token.lifetimeSeconds, findings, signature: signature ?? { state: 'not-verified' } }, null, 2));
  } else {
    io.out(formatDecoded(result.token, findings, signature));
  }
  if (signature?.state === 'failed') return 1;
  if (values.strict && findings.some((f) => f.severity === 'error')) return 1;
  return 0;
}

function formatDecoded(token: DecodedToken, findings: LintFinding[], signature: SignatureCheck | undefined): string {
  const lines = ['Header', indent(JSON.stringify(token.header, null, 2)), 'Payload', indent(JSON.stringify(token.payload, null, 2)), 'Times'];
  for (const name of ['iat', 'nbf', 'exp'] as const) {
    const t = token.times[name];
    if (t) lines.push(`  ${name.padEnd(4)} ${t.iso}  (${t.relative})`);
  }
  if (token.lifetimeSeconds !== undefined) lines.push(`  lifetime ${token.lifetimeSeconds} s`);
  if (!signature) lines.push('Signature: not verified (give --public-key to check it)');
  else if (signature.state === 'verified') lines.push('Signature: verified');
  else lines.push(`Signature: FAILED: ${signature.reason}`);
  lines.push(findings.length ? 'Findings' : 'Findings: none');
  for (const f of findings) lines.push(`  ${f.severity.padEnd(7)} [spec ${f.rule}] ${f.message}`);
  return lines.join('\n');
}

// ---------------------------------------------------------------- vehicles

async function vehiclesCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parse(args, {
    ...CREDENTIAL_OPTIONS,
    'base-url': { type: 'string' },
    api: { type: 'string' },
    status: { type: 'boolean' },
    'device-id': { type: 'string' },
    'all-pages': { type: 'boolean' },
    'max-pages': { type: 'string' },
    header: { type: 'string', multiple: true },
    timeout: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (values.help) return printUsage(io);
  const api = apiFrom(values, true);
  const headers = parseHeaders(values.header ?? [], api);
  const env = environmentFrom(values['base-url'], '--base-url', api, values, headers);
  const credential = loadCredential(values, io, api);
  const timeoutMs = values.timeout === undefined ? undefined : positiveNumber(values.timeout, '--timeout') * 1000;
  const maxPages = values['max-pages'] === undefined ? undefined : positiveNumber(values['max-pages'], '--max-pages');
  const { issuer, queue } = issuerFrom(values, io);
  const client = new ApiClient({ issuer, queue, timeoutMs });
  const stop = new AbortController();
  const listing = await client.listVehicles(env, credential, {
    query: { status: values.status, deviceId: values['device-id'] },
    allPages: values['all-pages'],
    maxPages,
    signal: stop.signal,
    onPage: (page, n) => {
      if (values['all-pages'] && !values.json) io.err(`page ${n}: ${page.status} ${page.statusText}, ${page.bytes} bytes`);
    },
  });
  const last = listing.pages[listing.pages.length - 1];
  // A 2xx whose body is broken is a failed listing too, not an empty one.
  if (!last.ok || last.bodyProblem) {
    io.err(`mobility-api: ${describeFailure(last)}`);
    if (values.json && last.bodyKind === 'json') io.out(JSON.stringify(last.body, null, 2));
    return 1;
  }
  if (values.json) io.out(JSON.stringify(listing.pages.length === 1 && !values['all-pages'] ? last.body : mergedBody(listing), null, 2));
  else io.out(formatListing(listing));
  return 0;
}

function parseHeaders(list: string[], api: ApiKind): Record<string, string> {
  // MDS 2.0 asks for its media type; without it a provider may answer with an older version.
  const headers: Record<string, string> = api === 'mds' ? { Accept: 'application/vnd.mds+json;version=2.0' } : {};
  for (const h of list) {
    const colon = h.indexOf(':');
    if (colon <= 0) throw new MobilityError('USAGE', `--header must look like 'Name: value', not "${h}".`);
    const name = h.slice(0, colon).trim();
    for (const existing of Object.keys(headers)) if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
    headers[name] = h.slice(colon + 1).trim();
  }
  return headers;
}

function positiveNumber(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new MobilityError('USAGE', `${flag} must be a positive number, not "${text}".`);
  return n;
}

/** One line: status, the MDS error body with the rule a sandbox names, and what to try. */
export function describeFailure(page: HttpExchange): string {
  const parts = [`${page.status} ${fromServer(page.statusText, 80)} from ${page.url}`.replace(/ {2}/, ' ')];
  if (page.mdsError) {
    const { error, error_description: description, error_details: details } = page.mdsError;
    parts.push(fromServer(`${error}${description ? `: ${description}` : ''}`, 300));
    if (details?.length) parts.push(`(${details.slice(0, 5).map((d) => fromServer(d, 200)).join('; ')}${details.length > 5 ? `; ${details.length - 5} more` : ''})`);
  } else if (page.bodyProblem) {
    parts.push(`— ${fromServer(page.bodyProblem, 300)}`);
  } else if (page.bodyKind === 'text' && typeof page.body === 'string') {
    parts.push(fromServer(page.body, 200));
  }
  const hint: Record<number, string> = {
    401: 'The token was refused: run `mobility-api decode` on a token from the same flags to see what is wrong.',
    403: 'The credential is valid but not allowed here: check the environment and the credential type.',
    404: 'Check the base URL and the API (--api).',
    406: 'The server does not support the requested version: check the Accept header.',
    429: 'Too many requests: wait and try again.',
    500: 'The server failed to answer: try again later, and if it persists, tell the API provider the time of the request.',
    502: 'A gateway in front of the server failed: try again later.',
    503: 'The service is unavailable for now: try again later.',
    504: 'A gateway in front of the server timed out: try again later.',
  };
  if (hint[page.status]) parts.push(`— ${hint[page.status]}`);
  if (page.retryAfterSeconds !== undefined) parts.push(`The server asks to wait ${page.retryAfterSeconds} s before trying again (Retry-After).`);
  return parts.join(' ');
}

/**
 * Server-sent text as it may be printed: one line, at most `max` characters, without control
 * characters (a hostile server could otherwise send terminal escape sequences) and without tokens
 * or keys (an echo server may send the request's Authorization header back).
 */
function fromServer(text: string, max: number): string {
  const line = redactSecrets(text).replace(/\s+/g, ' ').replace(/[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu, '?').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

function mergedBody(listing: VehicleListing): Record<string, unknown> {
  return { pages: listing.pages.length, [listing.listKey ?? 'vehicles']: listing.items, ...(listing.nextUrl ? { next: listing.nextUrl } : {}), ...(listing.stoppedBecause ? { stopped_because: listing.stoppedBecause } : {}) };
}

function formatListing(listing: VehicleListing, maxRows = 20): string {
  const first = listing.pages[0];
  const bytes = listing.pages.reduce((n, p) => n + p.bytes, 0);
  const lines = [
    `GET ${first.url} → ${first.status} ${first.statusText}`,
    `${listing.items.length} ${listing.listKey === 'vehicles_status' ? 'vehicle statuses' : 'vehicles'} from ${listing.pages.length} page${listing.pages.length === 1 ? '' : 's'}, ${formatBytes(bytes)}, first byte after ${first.timings.ttfbMs.toFixed(0)} ms`,
  ];
  const rows = listing.items.slice(0, maxRows).map(vehicleRow);
  if (rows.length) {
    const header = ['device_id', 'vehicle_id', 'type', 'propulsion', 'state', 'battery'];
    // Columns that no shown row fills (a status listing has no vehicle_id) are left out.
    const shown = header.map((_, i) => rows.some((r) => r[i] !== ''));
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const fmt = (cells: string[]) => cells.filter((_, i) => shown[i]).map((c, i) => c.padEnd(widths.filter((_, j) => shown[j])[i])).join('  ').trimEnd();
    lines.push('', fmt(header), ...rows.map(fmt));
    if (listing.items.length > rows.length) lines.push(`… ${listing.items.length - rows.length} more (use --json for all)`);
  }
  if (listing.nextUrl) lines.push('', `More pages: ${listing.stoppedBecause ?? 'use --all-pages to fetch them all'} (next: ${listing.nextUrl})`);
  return lines.join('\n');
}

function vehicleRow(item: unknown): string[] {
  const v = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
  const event = (v.last_event ?? {}) as Record<string, unknown>;
  const plain = (x: unknown): string => {
    if (x === undefined || x === null) return '';
    if (Array.isArray(x)) return x.map(plain).join(',');
    return typeof x === 'string' ? x : JSON.stringify(x);
  };
  const str = (x: unknown): string => fromServer(plain(x), 80);
  const battery = v.battery_percent ?? event.battery_percent;
  return [str(v.device_id ?? v.id), str(v.vehicle_id), str(v.vehicle_type), str(v.propulsion_types), str(event.vehicle_state ?? v.state), battery === undefined ? '' : `${str(battery)}%`];
}

// ---------------------------------------------------------------- sandbox and demo

async function sandboxCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parse(args, {
    port: { type: 'string' },
    fleet: { type: 'string' },
    'page-size': { type: 'string' },
    trust: { type: 'string', multiple: true },
    'demo-dir': { type: 'string' },
    json: { type: 'boolean' },
  });
  if (values.help) return printUsage(io);
  const port = values.port === undefined ? 0 : wholeNumber(values.port, '--port', 0, 65535);
  const trust = (values.trust ?? []).flatMap((file) => parseTrustFile(readFile(file, '--trust'), file));
  const demoDir = values['demo-dir'] === undefined ? undefined : path.resolve(values['demo-dir']);
  const demoKeyFile = demoDir ? path.join(demoDir, 'demo-private-key.pem') : undefined;
  const sandbox = await startSandbox({
    port,
    fleetSize: values.fleet === undefined ? undefined : wholeNumber(values.fleet, '--fleet', 1, 1_000_000),
    pageSize: values['page-size'] === undefined ? undefined : wholeNumber(values['page-size'], '--page-size', 1, 1000),
    trust,
    demoDir,
    // A demo folder that already holds a key keeps it, so credentials made from it stay valid.
    demoPrivateKeyPem: demoKeyFile && fs.existsSync(demoKeyFile) ? fs.readFileSync(demoKeyFile, 'utf8') : undefined,
  });
  if (values.json) {
    io.out(JSON.stringify({ url: sandbox.url, port: sandbox.port, environments: sandbox.environments.map((e) => ({ name: e.id, api: e.api, stage: e.stage, baseUrl: e.baseUrl })), demo: sandbox.demo }));
  } else {
    io.out(describeSandbox(sandbox));
  }
  await io.untilStopped();
  await sandbox.close();
  if (!values.json) io.err('sandbox stopped');
  return 0;
}

function describeSandbox(sandbox: RunningSandbox): string {
  const mds = sandbox.environments.find((e) => e.id === 'mds-staging') ?? sandbox.environments[0];
  return [
    `Sandbox provider listening on ${sandbox.url} (Ctrl-C stops it)`,
    '',
    ...sandbox.environments.map((e) => `  ${e.id.padEnd(15)} ${e.api.padEnd(5)} ${e.baseUrl}`),
    '',
    `Demo credential (External Organization, kid ${sandbox.demo.kid}, iss ${sandbox.demo.issuer}):`,
    `  ${sandbox.demo.credentialFile}`,
    '',
    'Try:',
    `  mobility-api vehicles --api mds --base-url ${mds.baseUrl} --credential ${sandbox.demo.credentialFile}`,
    `  curl -H "Authorization: Bearer $(mobility-api token --credential ${sandbox.demo.credentialFile} --aud ${mds.baseUrl})" ${mds.baseUrl}/vehicles`,
  ].join('\n');
}

function wholeNumber(text: string, flag: string, min: number, max: number): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < min || n > max) throw new MobilityError('USAGE', `${flag} must be a whole number from ${min} to ${max}, not "${text}".`);
  return n;
}

/** The README's first command: everything end to end against a sandbox, with no real credentials. */
async function demoCommand(args: string[], io: CliIo): Promise<number> {
  parse(args, {});
  const sandbox = await startSandbox({ fleetSize: 250, pageSize: 100 });
  try {
    io.out(`1. Started the local sandbox provider on ${sandbox.url}; it enforces the authentication rules of the spec.`);
    const credential = loadCredential({ credential: sandbox.demo.credentialFile }, io);
    io.out(`2. Loaded its demo External Organization credential: kid ${credential.kid}, iss ${credential.issuer}.`);
    const client = new ApiClient({ issuer: new TokenIssuer({ clock: new IssueClock({ precision: 'milliseconds' }) }) });
    let step = 3;
    for (const env of sandbox.environments) {
      const environment: Environment = { id: env.id, name: env.id, api: env.api, stage: env.stage, baseUrl: env.baseUrl };
      const status = env.id === 'mds-staging';
      const listing = await client.listVehicles(environment, credential, { allPages: true, query: { status } });
      const page = listing.pages[0];
      const claims = page.token.claims;
      io.out(`\n${step++}. ${env.id}${status ? ' (vehicle status)' : ''}: a fresh ES256 token per page (aud ${String(claims.aud)}, lifetime ${claims.exp - claims.iat} s, jti ${claims.jti.slice(0, 8)}…)`);
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

// ---------------------------------------------------------------- small things

function printUsage(io: CliIo): number {
  io.out(USAGE);
  return 0;
}

function indent(text: string): string {
  return text.replace(/^/gm, '  ');
}

function formatBytes(n: number): string {
  return n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} kB` : `${(n / 1024 / 1024).toFixed(1)} MB`;
}

function pick<T extends object, K extends keyof T>(obj: T, keys: K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const k of keys) out[k] = obj[k];
  return out;
}

function processIo(): CliIo {
  return {
    out: (text) => process.stdout.write(text + '\n'),
    err: (text) => process.stderr.write(text + '\n'),
    readStdin: async () => {
      if (process.stdin.isTTY) throw new MobilityError('USAGE', 'decode needs a token: give it as an argument, or pipe it in and pass -.');
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    env: process.env,
    untilStopped: () =>
      new Promise((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      }),
  };
}

if (require.main === module) {
  void runCli(process.argv.slice(2), processIo()).then((code) => {
    process.exitCode = code;
  });
}
