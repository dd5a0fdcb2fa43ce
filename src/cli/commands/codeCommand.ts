import type { ApiKind, ApiRequest } from '../../core/environment';
import type { CodeLanguage } from '../../core/codegen';
import { CODE_LANGUAGES, codeProgramFor, DEFAULT_CODE_LIFETIME, generateCode } from '../../core/codegen';
import { MobilityError } from '../../core/base';
import { buildEndpointRequest, catalogueOf, freeRequest } from '../../core/mds';
import { findFileRequest, parseRequestFile, resolveFileRequest } from '../../core/http';
import type { CliIo } from '../support/cliIo';
import { CODE_GRPC_OPTIONS, codeGrpc } from '../grpc/codeGrpc';
import {
  apiFrom,
  CREDENTIAL_OPTIONS,
  environmentFrom,
  loadCredential,
  parse,
  parseHeaders,
  wholeNumber,
} from '../support/options';
import { readFile } from '../support/inputFiles';
import { relativeToBase } from './sendCommand';
import { printUsage } from '../support/usage';

/**
 * `mobility-api code <language> <endpoint | /path | file.http>`: one complete program in that
 * language that signs a fresh token for every request (and page) and sends it. The program holds
 * no secret: the key file and the key id come from its environment (spec 5.7). The credential
 * given here only says which type of token to sign and, for External Organization and IAM, the issuer.
 * With `--grpc <package.Service/Method>`, a program for one gRPC call (Python or TypeScript; codeGrpc.ts).
 */
export function codeCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(
    args,
    {
      ...CREDENTIAL_OPTIONS,
      ...CODE_GRPC_OPTIONS,
      'base-url': { type: 'string' },
      api: { type: 'string' },
      header: { type: 'string', multiple: true },
      query: { type: 'string', multiple: true },
      request: { type: 'string' },
    },
    true,
  );
  if (values.help) return Promise.resolve(printUsage(io));
  const [language, target] = positionals;
  const lifetime =
    values.lifetime === undefined ? DEFAULT_CODE_LIFETIME : wholeNumber(values.lifetime, '--lifetime', 60, 3600);
  if (values.grpc !== undefined) {
    if (positionals.length !== 1 || !(CODE_LANGUAGES as readonly string[]).includes(language)) {
      throw new MobilityError(
        'USAGE',
        `code --grpc takes a language (python or typescript) and the method as --grpc <package.Service/Method>, with no endpoint, path or file.`,
      );
    }
    for (const flag of ['base-url', 'header', 'query', 'request'] as const)
      if (values[flag] !== undefined)
        throw new MobilityError(
          'USAGE',
          `--${flag} is for REST requests; a gRPC call takes --aud, --target, --data and --metadata.`,
        );
    return codeGrpc(language as CodeLanguage, values, io, lifetime);
  }
  for (const flag of ['target', 'plaintext', 'ca-file', 'proto', 'import-path', 'data', 'metadata', 'aud'] as const)
    if (values[flag] !== undefined)
      throw new MobilityError(
        'USAGE',
        `--${flag} is for a gRPC call: give the method with --grpc <package.Service/Method>.`,
      );
  if (positionals.length !== 2 || !(CODE_LANGUAGES as readonly string[]).includes(language)) {
    throw new MobilityError(
      'USAGE',
      `code takes a language (${CODE_LANGUAGES.join(', ')}) and one endpoint id, path such as /vehicles, or request file (.http).`,
    );
  }
  const api = apiFrom(values, true);
  const environment = environmentFrom(
    values['base-url'],
    '--base-url',
    api,
    values,
    parseHeaders(values.header ?? [], api),
  );
  const isFile = /\.(http|rest)$/i.test(target);
  if (values.request !== undefined && !isFile)
    throw new MobilityError('USAGE', '--request picks a request of a .http file; give the file.');
  const request = isFile
    ? fileRequest(target, values.request, environment.baseUrl, api, io)
    : targetRequest(api, target, values.query ?? []);
  const credential = loadCredential(values, io, api);
  // The program ends with its own newline; io.out adds one.
  io.out(
    generateCode(language as CodeLanguage, codeProgramFor(environment, credential, request, lifetime)).replace(
      /\n$/,
      '',
    ),
  );
  return Promise.resolve(0);
}

function targetRequest(api: ApiKind, target: string, queryList: string[]): ApiRequest {
  const query = queryList.map((q): [string, string] => {
    const eq = q.indexOf('=');
    if (eq <= 0) throw new MobilityError('USAGE', `--query must look like name=value, not "${q}".`);
    return [q.slice(0, eq), q.slice(eq + 1)];
  });
  if (!target.startsWith('/') && catalogueOf(api).some((e) => e.id === target))
    return buildEndpointRequest(api, target, Object.fromEntries(query));
  return freeRequest(api, target, new URLSearchParams(query));
}

function fileRequest(file: string, selector: string | undefined, baseUrl: string, api: ApiKind, io: CliIo): ApiRequest {
  const parsed = parseRequestFile(readFile(file, 'request'));
  if (parsed.requests.length === 0)
    throw new MobilityError('USAGE', `${file} holds no request: write "GET {{baseUrl}}/vehicles".`);
  if (selector === undefined && parsed.requests.length > 1) {
    throw new MobilityError(
      'USAGE',
      `${file} holds ${parsed.requests.length} requests: pick one with --request <name or number> (${parsed.requests.map((r) => r.name ?? String(r.index)).join(', ')}).`,
    );
  }
  const chosen = selector === undefined ? parsed.requests[0] : findFileRequest(parsed, selector);
  // The program signs its own token for every request: a header of the file's own is left out (with a warning), never refused.
  const resolved = resolveFileRequest(chosen, parsed, { baseUrl }, { authorizationAsIs: true });
  if (resolved.method !== 'GET')
    throw new MobilityError(
      'USAGE',
      `Request ${chosen.name ?? chosen.index} is ${resolved.method}: the MDS and MaaS APIs are read with GET.`,
    );
  if (resolved.authorization !== undefined)
    io.err(
      'mobility-api: warning: the request sets its own Authorization; the program signs a fresh token for every request instead (spec 5.1 rule 4).',
    );
  const headers = Object.fromEntries(
    Object.entries(resolved.headers).filter(([name]) => name.toLowerCase() !== 'authorization'),
  );
  return freeRequest(api, relativeToBase(resolved.url, baseUrl), undefined, headers);
}
