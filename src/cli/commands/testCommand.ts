import fs from 'node:fs';
import path from 'node:path';
import { errorMessage, isMobilityError, junitXml, MobilityError, redactSecrets } from '../../core/base';
import type { CredentialType } from '../../core/auth';
import type { Environment } from '../../core/environment';
import { normaliseBaseUrl } from '../../core/environment';
import { ApiClient } from '../../core/http';
import type { HttpExchange } from '../../core/http';
import type { ContractSource, RequestRun } from '../../core/contract';
import { failureLines, junitReport, planContractRun, runContractPlan } from '../../core/contract';
import { explainRefusal, refusalLines } from '../../results/tokens/refusalView';
import type { CliIo } from '../support/cliIo';
import { credentialValues, ENV_SOURCES } from '../support/credentialVariables';
import {
  apiFrom,
  CREDENTIAL_OPTIONS,
  environmentFrom,
  issuerFrom,
  loadCredential,
  parse,
  positiveNumber,
} from '../support/options';
import { readEnvFile, readFile } from '../support/inputFiles';
import { fromServer } from '../support/output';
import { printUsage } from '../support/usage';

/**
 * `mobility-api test <file | folder>...`: every request with assertions (`?? status == 200`; with --all every
 * request) of the request files, in file order, each with a fresh token; one line per request, the summary
 * `N passed, M failed`, and with --junit a JUnit report. Exit 0: all passed; 1: an assertion failed; 2: bad input
 * (no such file, a malformed assertion, a missing credential), found before anything is sent.
 */
export async function testCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseTestArgs(args);
  if (values.help) return printUsage(io, 'test');
  try {
    return await runTests(values, positionals, io);
  } catch (err) {
    // Bad input (exit 2): the reports asked for still say so, so that CI shows the error, not an old or no report.
    if (isMobilityError(err)) writeBadInput(values, [err.message], io);
    throw err;
  }
}

type TestValues = ReturnType<typeof parseTestArgs>['values'];

function parseTestArgs(args: string[]) {
  return parse(
    args,
    {
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
    },
    true,
  );
}

async function runTests(values: TestValues, positionals: string[], io: CliIo): Promise<number> {
  if (positionals.length === 0)
    throw new MobilityError(
      'USAGE',
      'test takes request files (.http or .rest) or folders holding them: mobility-api test requests/ --base-url <url> <credential>.',
    );
  const fromFile = await envFile(values['env-file'], values.dotenv);
  const env = { ...fromFile, ...io.env };
  const api = apiFrom(values, false);
  const environment = environmentFrom(values['base-url'], '--base-url', api, values);
  // The base URL is checked before any file is read, so that a typo is said first.
  normaliseBaseUrl(environment.baseUrl, environment.name);
  // A key from MOBILITY_API_KEY_FILE: its errors name the variables, not flags that were never given.
  const fromEnv =
    values['private-key'] === undefined && values['key-file'] === undefined && values.credential === undefined;
  const credential = loadCredential(
    credentialValues(values, env),
    { ...io, env },
    api,
    fromEnv ? ENV_SOURCES : undefined,
  );
  const timeoutMs = values.timeout === undefined ? undefined : positiveNumber(values.timeout, '--timeout') * 1000;

  const sources = positionals
    .flatMap(requestFilesOf)
    .map((file): ContractSource => ({ name: file, text: readFile(file, 'request') }));
  const grpcTarget = values['grpc-target'] ?? fromFile.grpcTarget;
  const plan = planContractRun(sources, {
    api,
    baseUrl: environment.baseUrl,
    all: values.all,
    filter: values.filter,
    variables: fromFile,
    ...(grpcTarget ? { grpcTarget } : {}),
  });
  for (const w of plan.warnings) io.err(`mobility-api: warning: ${w.file}:${w.line + 1}: ${w.message}`);
  if (plan.problems.length) {
    const lines = plan.problems.map((p) => `${p.file}:${p.line + 1}:${p.column + 1}: ${p.message}`);
    for (const line of lines) io.err(`mobility-api: ${line}`);
    io.err(
      `mobility-api: nothing was sent: fix ${plan.problems.length === 1 ? 'this line' : `these ${plan.problems.length} lines`} first.`,
    );
    writeBadInput(values, lines, io);
    return 2;
  }
  const planned = plan.files.reduce((n, f) => n + f.requests.length, 0);
  if (planned === 0) {
    const what =
      values.filter !== undefined
        ? `no request named like "${values.filter}"`
        : values.all
          ? 'no request'
          : 'no request with assertions';
    throw new MobilityError(
      'USAGE',
      `${sources.map((s) => s.name).join(', ')}: ${what}. Write assertions under a request (?? status == 200), or run every request with --all.`,
    );
  }

  const { issuer, queue } = issuerFrom(values, io);
  const client = new ApiClient({ issuer, queue, timeoutMs });
  const hasGrpc = plan.files.some((f) => f.requests.some((r) => r.grpc));
  // grpc-js is loaded only when the collection has a GRPC request.
  const grpc = hasGrpc
    ? (await import('../grpc/testGrpc')).testGrpcCaller(
        { environment, credential, issuer, queue },
        { plaintext: values.plaintext, caFile: values['ca-file'], deadlineMs: timeoutMs },
      )
    : undefined;
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

  const passed = runs.filter((r) => r.passed && !r.skipped && !r.untested).length;
  const skipped = runs.filter((r) => r.skipped && r.passed).length;
  const untested = runs.filter((r) => r.untested && r.passed).length;
  const failed = runs.filter((r) => !r.passed).length;
  // With --bail, what was not run is in the report too, skipped, so that a reader sees what was left out.
  const ran = new Set(runs.map((r) => `${r.file}\n${r.line}`));
  const left = plan.files
    .flatMap((f) => f.requests)
    .filter((r) => !ran.has(`${r.file}\n${r.line}`))
    .map((r): RequestRun => ({
      file: r.file,
      label: r.label,
      line: r.line,
      durationMs: 0,
      pages: 0,
      outcomes: [],
      tokens: [],
      skipped: 'not run: --bail stopped the run at the first failed request',
      passed: true,
    }));
  const notRun = left.length;
  if (values.junit !== undefined)
    writeReport(
      values.junit,
      junitReport(
        plan.files.map((f) => f.name),
        [...runs, ...left],
        { name: 'mobility-api test', timestamp: new Date() },
      ),
    );
  if (values.json) {
    io.out(JSON.stringify({ passed, failed, skipped, untested, notRun, requests: runs.map(oneBased) }, null, 2));
  } else {
    const extra = [
      untested ? `${untested} sent, not tested (no assertion)` : '',
      skipped ? `${skipped} skipped` : '',
      notRun ? `${notRun} not run (--bail)` : '',
    ]
      .filter(Boolean)
      .join(', ');
    if (extra) io.out(extra);
    io.out(`${passed} passed, ${failed} failed`);
  }
  return failed ? 1 : 0;
}

/** On bad input (exit 2), the --junit report holds the error as a test case in error, and --json prints it. */
function writeBadInput(values: TestValues, lines: string[], io: CliIo): void {
  if (values.junit !== undefined) {
    const text = lines.join('\n');
    const report = junitXml(
      'mobility-api test',
      [
        {
          name: 'mobility-api test',
          cases: [
            {
              name: 'bad input: nothing was sent',
              classname: 'mobility-api test',
              ms: 0,
              error: { type: 'BadInput', message: lines[0] ?? '', text },
            },
          ],
        },
      ],
      new Date(),
    );
    try {
      writeReport(values.junit, report);
    } catch (err) {
      io.err(`mobility-api: ${errorMessage(err)}`);
    }
  }
  if (values.json)
    io.out(
      JSON.stringify(
        {
          error: lines.join('\n'),
          problems: lines,
          passed: 0,
          failed: 0,
          skipped: 0,
          untested: 0,
          notRun: 0,
          requests: [],
        },
        null,
        2,
      ),
    );
}

/** A run as --json prints it: lines and columns 1-based, as every message and report says them. */
function oneBased(run: RequestRun): RequestRun {
  return {
    ...run,
    line: run.line + 1,
    outcomes: run.outcomes.map((o) => ({ ...o, line: o.line + 1, column: o.column + 1 })),
  };
}

/** One line per request, then each failed assertion at its line, indented. */
function runLines(run: RequestRun): string[] {
  const where = `${run.file}:${run.line + 1}`;
  if (run.skipped && run.passed) return [`SKIP  ${run.label}  (${where})  ${run.skipped}`];
  const verdict = run.untested && run.passed ? 'SENT' : run.passed ? 'PASS' : 'FAIL';
  const status =
    run.status !== undefined
      ? `${run.status} ${fromServer(run.statusText ?? '', 40)}`.trim()
      : run.grpcStatus !== undefined
        ? run.grpcStatus
        : run.error !== undefined
          ? 'no answer'
          : 'not sent';
  const total = run.outcomes.length;
  const bad = run.outcomes.filter((o) => !o.passed).length;
  const counts =
    run.error !== undefined
      ? ''
      : run.untested
        ? '  no assertion: sent, not tested'
        : bad
          ? `  ${bad} of ${total} assertions failed`
          : `  ${total} ${total === 1 ? 'assertion' : 'assertions'} passed`;
  const pages = run.pages > 1 ? ` · ${run.pages} pages` : '';
  const lines = [`${verdict}  ${run.label}  (${where})  ${status}${pages}  ${run.durationMs} ms${counts}`];
  for (const line of failureLines(run)) lines.push(`      ${fromServer(line, 2000)}`);
  if (!run.passed && run.tokens.length)
    lines.push(
      `      token: jti ${run.tokens[run.tokens.length - 1].jti}, kid ${run.tokens[run.tokens.length - 1].kid}`,
    );
  return lines;
}

/** The refusal doctor's explanation of a 401 or 403, one line each, safe to print. */
function refusalOf(page: HttpExchange, environment: Environment, credentialType: CredentialType): string[] | undefined {
  const explanation = explainRefusal(page, {
    audience: normaliseBaseUrl(environment.baseUrl, environment.name),
    api: environment.api,
    credentialType,
    now: Date.now(),
  });
  return explanation ? refusalLines(explanation).map((line) => fromServer(line, 2000)) : undefined;
}

/** `--env-file` or `--dotenv`: `NAME=value` lines (dotenv), read once (see `readEnvFile`). */
async function envFile(envFile: string | undefined, dotenv: string | undefined): Promise<Record<string, string>> {
  if (envFile !== undefined && dotenv !== undefined)
    throw new MobilityError('USAGE', 'Give the variables as --env-file or as --dotenv, not both.');
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
  const found = fs
    .readdirSync(given, { recursive: true, encoding: 'utf8' })
    .filter(
      (name) =>
        /\.(http|rest)$/i.test(name) &&
        !name.split(path.sep).some((part) => part === 'node_modules' || part.startsWith('.')),
    )
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
    throw new MobilityError(
      'USAGE',
      `Cannot write the --junit report ${file}: ${redactSecrets((err as Error).message)}.`,
    );
  }
}
