import { ApiClient } from '../../core/http';
import type { ApiKind, ApiRequest, Environment } from '../../core/environment';
import type { ApiResult } from '../../core/http';
import type { Credential } from '../../core/auth';
import type { FileClockStore } from '../../core/clock';
import { MobilityError } from '../../core/base';
import { buildEndpointRequest, catalogueOf, freeRequest } from '../../core/mds';
import type { CliIo } from '../support/cliIo';
import {
  apiFrom,
  CREDENTIAL_OPTIONS,
  environmentFrom,
  HEADER_OPTIONS,
  issuerFrom,
  loadCredential,
  noteOwnAuthorization,
  parse,
  positiveNumber,
  userHeaders,
} from '../support/options';
import { fromServer, printRefusalAndClock } from '../support/output';
import { answerJson, conformanceOf, formatConformance, formatResult, mergedResultBody } from '../support/resultOutput';
import { printUsage } from '../support/usage';

/** The options of `request` and `send`: where to, how many pages, and what to print. */
export const REQUEST_OPTIONS = {
  ...CREDENTIAL_OPTIONS,
  'base-url': { type: 'string' },
  api: { type: 'string' },
  'all-pages': { type: 'boolean' },
  'max-pages': { type: 'string' },
  ...HEADER_OPTIONS,
  timeout: { type: 'string' },
  json: { type: 'boolean' },
  validate: { type: 'boolean' },
  mode: { type: 'string' },
} as const;

/**
 * `mobility-api request <endpoint | path>`: any catalogue endpoint (parameters from `--query`,
 * checked before anything is signed, defaults filled in) or any path under the base URL, with a
 * fresh token per request and per page.
 */
export async function requestCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, { ...REQUEST_OPTIONS, query: { type: 'string', multiple: true } }, true);
  if (values.help) return printUsage(io);
  if (positionals.length !== 1)
    throw new MobilityError(
      'USAGE',
      'request takes one endpoint id (see `mobility-api endpoints`) or one path such as /vehicles?page_size=10.',
    );
  const api = apiFrom(values, true);
  const target = positionals[0];
  const query = parseQuery(values.query ?? []);
  let request: ApiRequest;
  if (isEndpointId(api, target)) {
    const built = buildEndpointRequest(api, target, Object.fromEntries(query));
    for (const name of built.defaulted) io.err(`mobility-api: ${name} not given: using ${built.values[name]}`);
    request = built;
  } else {
    request = freeRequest(api, target, new URLSearchParams(query));
  }
  const { headers, authorization } = userHeaders(values, api);
  const environment = environmentFrom(values['base-url'], '--base-url', api, values, headers);
  const credential = loadCredential(values, io, api);
  const timeoutMs = values.timeout === undefined ? undefined : positiveNumber(values.timeout, '--timeout') * 1000;
  const maxPages = values['max-pages'] === undefined ? undefined : positiveNumber(values['max-pages'], '--max-pages');
  const { issuer, queue, store } = issuerFrom(values, io);
  const client = new ApiClient({ issuer, queue, timeoutMs });
  if (authorization !== undefined) noteOwnAuthorization(io);
  const result = await client.request(environment, credential, request, {
    allPages: values['all-pages'],
    maxPages,
    authorization,
    onPage: (page, n) => {
      if (values['all-pages'] && !values.json)
        io.err(`page ${n}: ${page.status} ${page.statusText}, ${page.bytes} bytes`);
    },
  });
  return printResult(result, request, values, io, { environment, credential, store });
}

/** Where a result came from, to explain a refusal: the environment, the credential, the shared clock's store. */
export interface ResultOrigin {
  environment: Environment;
  credential?: Credential;
  store?: Pick<FileClockStore, 'readMarks'>;
}

/**
 * Prints a result (and its conformance with --validate), then on stderr a clock-skew warning and,
 * after a 401 or 403, why it was likely refused; the exit code says whether it is what was asked for.
 */
export async function printResult(
  result: ApiResult,
  request: ApiRequest,
  values: { json?: boolean; validate?: boolean; mode?: string; 'all-pages'?: boolean },
  io: CliIo,
  origin?: ResultOrigin,
): Promise<number> {
  // A body that is not JSON (an HTML page with 200 OK) is said as such, and not checked against the schemas.
  const problem = result.pages.find((p) => p.ok && p.bodyProblem)?.bodyProblem;
  const conformance = values.validate && !problem ? conformanceOf(result, request.endpointId, values.mode) : undefined;
  if (values.json) {
    const body = result.pages.length === 1 && !values['all-pages'] ? result.pages[0].body : mergedResultBody(result);
    io.out(answerJson(conformance ? { response: body, conformance } : body, result.pages));
    if (problem) io.err(`mobility-api: ${fromServer(problem, 300)}`);
  } else {
    io.out(formatResult(result, result.itemsKey ?? request.itemsKey));
    if (conformance) io.out(formatConformance(conformance));
    else if (problem && values.validate) io.out(`MDS 2.0: not checked: ${fromServer(problem, 300)}`);
  }
  const last = result.pages[result.pages.length - 1];
  if (origin) await printRefusalAndClock(last, origin.environment, origin.credential, io, origin.store);
  if (result.outcome === 'error' || result.outcome === 'not_found' || last?.bodyProblem) return 1;
  if (conformance && !conformance.conforms) return 1;
  return 0;
}

function isEndpointId(api: ApiKind, target: string): boolean {
  return !target.startsWith('/') && catalogueOf(api).some((e) => e.id === target);
}

/** `--query name=value`, repeatable; the value may be empty, the name may not. */
function parseQuery(list: string[]): [string, string][] {
  return list.map((q) => {
    const eq = q.indexOf('=');
    if (eq <= 0) throw new MobilityError('USAGE', `--query must look like name=value, not "${q}".`);
    return [q.slice(0, eq), q.slice(eq + 1)];
  });
}
