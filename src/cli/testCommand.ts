import fs from 'node:fs';
import path from 'node:path';
import { MobilityError, redactSecrets } from '../core/base';
import type { CredentialType } from '../core/auth';
import type { Environment } from '../core/environment';
import { normaliseBaseUrl } from '../core/environment';
import { ApiClient } from '../core/http';
import type { HttpExchange } from '../core/http';
import type { ContractSource, RequestRun } from '../core/contract';
import { failureLines, junitReport, planContractRun, runContractPlan } from '../core/contract';
import { explainRefusal, refusalLines } from '../results/refusalView';
import type { CliIo } from './cliIo';
import type { CredentialValues } from './options';
import { apiFrom, CREDENTIAL_OPTIONS, environmentFrom, issuerFrom, loadCredential, parse, positiveNumber, readEnvFile, readFile } from './options';
import { fromServer } from './output';
import { printUsage } from './usage';

/** The environment variables a CI job gives the credential in, so that no secret stands on a command line. */
export const CREDENTIAL_VARIABLES = {
  keyFile: 'MOBILITY_API_KEY_FILE',
  keyId: 'MOBILITY_API_KEY_ID',
  issuer: 'MOBILITY_API_ISSUER',
  type: 'MOBILITY_API_CREDENTIAL_TYPE',
} as const;

/**
 * `mobility-api test <file | folder>...`: every request with assertions (`?? status == 200`; with --all every
 * request) of the request files, in file order, each with a fresh token; one line per request, the summary
 * `N passed, M failed`, and with --junit a JUnit report. Exit 0: all passed; 1: an assertion failed; 2: bad input
 * (no such file, a malformed assertion, a missing credential), found before anything is sent.
 */
export async function testCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, {
    ...CREDENTIAL_OPTIONS,
    'base-url': { type: 'string' },
    api: { type: 'string' },
    'env-file': { type: 'string' },
    dotenv: { type: 'string' },
    filter: { type: 'string' },
    bail: { type: 'boolean' },
    all: { type: 'boolean' },
    junit: { type: 'string' },
    json: { type: 'boolean' },
    timeout: { type: 'string' },
    'grpc-target': { type: 'string' },
    plaintext: { type: 'boolean' },
    'ca-file': { type: 'string' },
  }, true);
  if (values.help) return printUsage(io);
  if (positionals.length === 0) throw new MobilityError('USAGE', 'test takes request files (.http or .rest) or folders holding them: mobility-api test requests/ --base-url <url> <credential>.');
  const fromFile = await envFile(values['env-file'], values.dotenv);
  const env = { ...fromFile, ...io.env };
  const api = apiFrom(values, false);
  const environment = environmentFrom(values['base-url'], '--base-url', api, values);
  // The base URL is checked before any file is read, so that a typo is said first.
  normaliseBaseUrl(environment.baseUrl, environment.name);
  const credential = loadCredential(credentialValues(values, env), { ...io, env }, api);
  const timeoutMs = values.timeout === undefined ? undefined : positiveNumber(values.timeout, '--timeout') * 1000;

  const sources = positionals.flatMap(requestFilesOf).map((file): ContractSource => ({ name: file, text: readFile(file, 'request') }));
  const grpcTarget = values['grpc-target'] ?? fromFile.grpcTarget;
  const plan = planContractRun(sources, { api, baseUrl: environment.baseUrl, all: values.all, filter: values.filter, variables: fromFile, ...(grpcTarget ? { grpcTarget } : {}) });
  for (const w of plan.warnings) io.err(`mobility-api: warning: ${w.file}:${w.line + 1}: ${w.message}`);
  if (plan.problems.length) {
    for (const p of plan.problems) io.err(`mobility-api: ${p.file}:${p.line + 1}:${p.column + 1}: ${p.message}`);
    io.err(`mobility-api: nothing was sent: fix ${plan.problems.length === 1 ? 'this line' : `these ${plan.problems.length} lines`} first.`);
    return 2;
  }
  const planned = plan.files.reduce((n, f) => n + f.requests.length, 0);
  if (planned === 0) {
    const what = values.filter !== undefined ? `no request named like "${values.filter}"` : values.all ? 'no request' : 'no request with assertions';
    throw new MobilityError('USAGE', `${sources.map((s) => s.name).join(', ')}: ${what}. Write assertions under a request (?? status == 200), or run every request with --all.`);
  }

  const { issuer, queue } = issuerFrom(values, io);
  const client = new ApiClient({ issuer, queue, timeoutMs });
  const hasGrpc = plan.files.some((f) => f.requests.some((r) => r.grpc));
  // grpc-js is loaded only when the collection has a GRPC request.
  const grpc = hasGrpc ? (await import('./testGrpc')).testGrpcCaller({ environment, credential, issuer, queue }, { plaintext: values.plaintext, caFile: values['ca-file'], deadlineMs: timeoutMs }) : undefined;
  const runs = await runContractPlan(plan, {
    client,
    environment,
    credential,
    bail: values.bail,
    ...(grpc ? { callGrpc: grpc.callGrpc } : {}),
    explainRefusal: (page) => refusalOf(page, environment, credential.type),
    onRequest: (run) => {
      if (!values.json) for (const line of runLines(run)) io.out(line);
    },
  }).finally(() => grpc?.close());

  const passed = runs.filter((r) => r.passed && !r.skipped).length;
  const skipped = runs.filter((r) => r.skipped && r.passed).length;
  const failed = runs.filter((r) => !r.passed).length;
  const notRun = planned - runs.length;
  if (values.junit !== undefined) writeReport(values.junit, junitReport(plan.files.map((f) => f.name), runs, { name: 'mobility-api test', timestamp: new Date() }));
  if (values.json) {
    io.out(JSON.stringify({ passed, failed, skipped, notRun, requests: runs }, null, 2));
  } else {
    const extra = [skipped ? `${skipped} skipped` : '', notRun ? `${notRun} not run (--bail)` : ''].filter(Boolean).join(', ');
    if (extra) io.out(extra);
    io.out(`${passed} passed, ${failed} failed`);
  }
  return failed ? 1 : 0;
}

/** One line per request, then each failed assertion at its line, indented. */
function runLines(run: RequestRun): string[] {
  const where = `${run.file}:${run.line + 1}`;
  if (run.skipped && run.passed) return [`SKIP  ${run.label}  (${where})  ${run.skipped}`];
  const verdict = run.passed ? 'PASS' : 'FAIL';
  const status = run.status !== undefined ? `${run.status} ${fromServer(run.statusText ?? '', 40)}`.trim() : run.grpcStatus !== undefined ? run.grpcStatus : run.error !== undefined ? 'no answer' : 'not sent';
  const total = run.outcomes.length;
  const bad = run.outcomes.filter((o) => !o.passed).length;
  const counts = run.error !== undefined ? '' : bad ? `  ${bad} of ${total} assertions failed` : `  ${total} ${total === 1 ? 'assertion' : 'assertions'} passed`;
  const pages = run.pages > 1 ? ` · ${run.pages} pages` : '';
  const lines = [`${verdict}  ${run.label}  (${where})  ${status}${pages}  ${run.durationMs} ms${counts}`];
  for (const line of failureLines(run)) lines.push(`      ${fromServer(line, 2000)}`);
  if (!run.passed && run.tokens.length) lines.push(`      token: jti ${run.tokens[run.tokens.length - 1].jti}, kid ${run.tokens[run.tokens.length - 1].kid}`);
  return lines;
}

/** The refusal doctor's explanation of a 401 or 403, one line each, safe to print. */
function refusalOf(page: HttpExchange, environment: Environment, credentialType: CredentialType): string[] | undefined {
  const explanation = explainRefusal(page, { audience: normaliseBaseUrl(environment.baseUrl, environment.name), api: environment.api, credentialType, now: Date.now() });
  return explanation ? refusalLines(explanation).map((line) => fromServer(line, 2000)) : undefined;
}

/**
 * The credential flags, or else the environment variables (`MOBILITY_API_KEY_FILE`: a PEM or JWK private key, or a
 * service account's key file; `MOBILITY_API_KEY_ID`, `MOBILITY_API_ISSUER`, `MOBILITY_API_CREDENTIAL_TYPE`).
 */
export function credentialValues(values: CredentialValues, env: NodeJS.ProcessEnv): CredentialValues {
  if (values['private-key'] !== undefined || values['key-file'] !== undefined || values.credential !== undefined) return values;
  const keyFile = env[CREDENTIAL_VARIABLES.keyFile];
  if (!keyFile) {
    throw new MobilityError('USAGE', `Give a credential: --private-key <file> with --kid and --iss, --key-file <service-account.json> or --credential <demo-credential.json>; or, in CI, the variables ${CREDENTIAL_VARIABLES.keyFile} (the key file), ${CREDENTIAL_VARIABLES.keyId}, ${CREDENTIAL_VARIABLES.issuer} and ${CREDENTIAL_VARIABLES.type}.`);
  }
  return {
    ...values,
    'private-key': keyFile,
    kid: values.kid ?? env[CREDENTIAL_VARIABLES.keyId],
    iss: values.iss ?? env[CREDENTIAL_VARIABLES.issuer],
    type: values.type ?? env[CREDENTIAL_VARIABLES.type],
  };
}

/** `--env-file` or `--dotenv`: `NAME=value` lines (dotenv), read once (see `readEnvFile`). */
async function envFile(envFile: string | undefined, dotenv: string | undefined): Promise<Record<string, string>> {
  if (envFile !== undefined && dotenv !== undefined) throw new MobilityError('USAGE', 'Give the variables as --env-file or as --dotenv, not both.');
  if (envFile !== undefined) return readEnvFile(envFile, '--env-file');
  return dotenv === undefined ? {} : readEnvFile(dotenv, '--dotenv');
}

/** A file as it is, a folder's `.http` and `.rest` files (and its subfolders'), sorted by path. */
function requestFilesOf(given: string): string[] {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(given);
  } catch {
    throw new MobilityError('FILE_READ_FAILED', `Cannot read the request file ${given}: no such file or folder.`);
  }
  if (!stat.isDirectory()) return [given];
  const found = (fs.readdirSync(given, { recursive: true, encoding: 'utf8' }))
    .filter((name) => /\.(http|rest)$/i.test(name) && !name.split(path.sep).some((part) => part === 'node_modules' || part.startsWith('.')))
    .map((name) => path.join(given, name))
    .sort();
  if (found.length === 0) throw new MobilityError('USAGE', `${given} holds no .http or .rest file.`);
  return found;
}

/** Writes the report; a folder that does not exist yet is made. */
function writeReport(file: string, text: string): void {
  try {
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    fs.writeFileSync(file, text);
  } catch (err) {
    throw new MobilityError('USAGE', `Cannot write the --junit report ${file}: ${redactSecrets((err as Error).message)}.`);
  }
}
