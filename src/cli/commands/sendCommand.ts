import { ApiClient, findFileRequest, listFileRequests, parseRequestFile, resolveFileRequest } from '../../core/http';
import type { FileRequest, RequestFile } from '../../core/http';
import { MobilityError } from '../../core/base';
import { normaliseBaseUrl } from '../../core/environment';
import { freeRequest } from '../../core/mds';
import type { CliIo } from '../support/cliIo';
import {
  apiFrom,
  environmentFrom,
  issuerFrom,
  loadCredential,
  noteOwnAuthorization,
  parse,
  positiveNumber,
  userHeaders,
} from '../support/options';
import { readFile } from '../support/inputFiles';
import { printResult, REQUEST_OPTIONS } from './requestCommand';
import { printUsage } from '../support/usage';
import { SEND_GRPC_OPTIONS, sendGrpcFileRequest } from '../grpc/sendGrpc';

/**
 * `mobility-api send <file.http> [--request <name | n>]`: the request files the extension's
 * CodeLens sends, from a shell. `{{baseUrl}}` is `--base-url`; a fresh token is signed for the
 * request (and each page). A request's own Authorization is refused unless `# @authorization as-is`
 * or `--send-authorization-as-is` asks for it.
 */
export async function sendCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(
    args,
    { ...REQUEST_OPTIONS, ...SEND_GRPC_OPTIONS, request: { type: 'string' } },
    true,
  );
  if (values.help) return printUsage(io);
  if (positionals.length !== 1) throw new MobilityError('USAGE', 'send takes one request file (.http or .rest).');
  const file = parseRequestFile(readFile(positionals[0], 'request'));
  if (file.notText) throw new MobilityError('USAGE', `${positionals[0]}: ${file.notText}`);
  for (const p of file.problems) io.err(`mobility-api: warning: ${positionals[0]}:${p.line + 1}: ${p.message}`);
  if (file.requests.length === 0)
    throw new MobilityError('USAGE', `${positionals[0]} holds no request: write "GET {{baseUrl}}/vehicles".`);
  if (values.request === undefined && file.requests.length > 1) {
    throw new MobilityError(
      'USAGE',
      `${positionals[0]} holds ${file.requests.length} requests: pick one with --request <name or number> (${listFileRequests(file)}).`,
    );
  }
  const chosen = values.request === undefined ? file.requests[0] : findFileRequest(file, values.request);
  refuseScripts(positionals[0], file, chosen);
  if (chosen.grpc) return sendGrpcFileRequest(chosen, file, positionals[0], values, io);
  const api = apiFrom(values, true);
  const baseUrl = values['base-url'];
  // Before the file's {{baseUrl}} takes it: a refused base URL is named by its flag, never repeated.
  if (baseUrl) normaliseBaseUrl(baseUrl, '--base-url');
  const asIs = values['send-authorization-as-is'] === true;
  const resolved = resolveFileRequest(chosen, file, baseUrl ? { baseUrl } : {}, { authorizationAsIs: asIs });
  const given = userHeaders(values, api, true);
  const authorization = resolved.authorization ?? given.authorization;
  if (asIs && authorization === undefined)
    throw new MobilityError(
      'USAGE',
      `--send-authorization-as-is sends an Authorization set by the request or given with --header as written; request ${chosen.name ?? chosen.index} sets none.`,
    );
  if (resolved.method !== 'GET')
    throw new MobilityError(
      'USAGE',
      `Request ${chosen.name ?? chosen.index} is ${resolved.method}: the MDS and MaaS APIs are read with GET.`,
    );
  const environment = environmentFrom(baseUrl, '--base-url', api, values, given.headers);
  const path = relativeToBase(resolved.url, environment.baseUrl);
  const request = freeRequest(api, path, undefined, resolved.headers);
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
  });
  return printResult(result, request, values, io, { environment, credential, store });
}

/**
 * What `send` would otherwise skip in silence, refused at its file:line:col as `test` refuses it (exit 2, nothing
 * sent): the request's script blocks and handlers (httpYac's `{{ … }}`, JetBrains' `> {% … %}`), `# @loop`, `# @ref`,
 * and a script block in a block without a request (httpYac runs it before every request). A `??` line is a test's,
 * not a send's: `send` leaves assertions to `test`, as it always did.
 */
function refuseScripts(name: string, file: RequestFile, chosen: FileRequest): void {
  const ofRequests = new Set(file.requests.flatMap((r) => r.refused ?? []));
  const global = file.refused.filter((r) => !ofRequests.has(r) && !r.text.startsWith('??'));
  const refused = [...global, ...(chosen.refused ?? [])].sort((a, b) => a.line - b.line);
  if (refused.length === 0) return;
  const lines = refused.map((r) => `${name}:${r.line + 1}:${r.column + 1}: ${r.message}`);
  throw new MobilityError(
    'USAGE',
    `${lines.join('\n')}\nNothing was sent: remove ${refused.length === 1 ? 'this line' : 'these lines'} (send runs no script), or write what it checks as ?? lines and run mobility-api test.`,
  );
}

/** The request's URL as a path under the base URL; a URL elsewhere would send the token to another server. */
export function relativeToBase(url: string, baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  if (url === base || url.startsWith(`${base}/`) || url.startsWith(`${base}?`)) return url.slice(base.length) || '/';
  throw new MobilityError(
    'USAGE',
    `The request goes to ${url}, which is not under --base-url ${base}: the token is only signed for that environment (its audience).`,
  );
}
