import path from 'node:path';
import * as vscode from 'vscode';
import type { Environment } from '../../core/environment';
import { API_LABELS, withoutTrailingSlashes } from '../../core/environment';
import { requestAssertions } from '../../core/contract';
import { MobilityError } from '../../core/base';
import { catalogueOf, endpointDefaults, freeRequest } from '../../core/mds';
import type { CatalogueEndpoint } from '../../core/mds';
import { parseRequestFile } from '../../core/http';
import type { CommandDeps, CommandOutcome } from '../platform/commandDeps';
import { COMMANDS } from '../platform/commandIds';
import { resolveEnvironment } from '../environments/pickers';
import { registerCommand } from '../platform/registerCommand';
import type { FileRequestArgs, FileRequestAt } from './requestFileAt';
import { fileRequestAt } from './requestFileAt';
import { registerCopyGrpcurl, sendGrpcFileRequest } from '../grpc/grpcFileRequests';
import type { RequestFileLensProvider } from './requestFileLens';
import { REQUEST_FILE_SELECTOR, targetOf } from './requestFileLens';
import type { PreparedRequest, RequestRunner } from './requestRunner';

export type { FileRequestArgs } from './requestFileAt';

/** The CodeLens of request files, "Send with fresh token" (the lens's command, GET and GRPC), Copy as grpcurl and New Request File. */
export function registerRequestFiles(
  deps: CommandDeps,
  runner: RequestRunner,
  lenses: RequestFileLensProvider,
): vscode.Disposable[] {
  return [
    vscode.languages.registerCodeLensProvider(REQUEST_FILE_SELECTOR, lenses),
    registerCommand(deps, COMMANDS.sendFileRequest, async (args?: FileRequestArgs): Promise<CommandOutcome> => {
      const at = await fileRequestAt(args);
      if (at.request.method === 'GRPC') return sendGrpcFileRequest(deps, at);
      const { prepared, requestName } = prepareGetRequest(deps, at);
      const outcome = await runner.send(prepared);
      return outcome.ok ? { ...outcome, ownAuthorization: prepared.authorization !== undefined, requestName } : outcome;
    }),
    registerCopyGrpcurl(deps),
    registerCommand(
      deps,
      COMMANDS.newRequestFile,
      async (target?: { environmentId?: string }): Promise<CommandOutcome> => {
        const env = target?.environmentId
          ? await resolveEnvironment(deps, { environmentId: target.environmentId }, '')
          : (deps.environments.active() ??
            (await resolveEnvironment(deps, undefined, vscode.l10n.t('A request file for which environment?'))));
        const content = starterFile(env, Date.now(), deps.environments.exampleValues(env.id));
        const uri = untitledUri(env);
        const document = await vscode.workspace.openTextDocument(uri);
        const edit = new vscode.WorkspaceEdit();
        edit.insert(uri, new vscode.Position(0, 0), content);
        await vscode.workspace.applyEdit(edit);
        await vscode.window.showTextDocument(document, { preview: false });
        return {
          ok: true,
          environmentId: env.id,
          uri: uri.toString(),
          requests: parseRequestFile(content).requests.length,
        };
      },
    ),
  ];
}

/** The GET of a request file at `args` (or the cursor) as a prepared request, with the environment its URL is under. */
export async function prepareFileRequest(
  deps: CommandDeps,
  args: FileRequestArgs | undefined,
): Promise<{ prepared: PreparedRequest; requestName?: string }> {
  return prepareGetRequest(deps, await fileRequestAt(args));
}

function prepareGetRequest(
  deps: CommandDeps,
  { file, request }: FileRequestAt,
): { prepared: PreparedRequest; requestName?: string } {
  if (request.method !== 'GET')
    throw new MobilityError(
      'USAGE',
      vscode.l10n.t(
        'Request {0} is {1}: the MDS and MaaS APIs are read with GET (and gRPC with GRPC).',
        request.name ?? String(request.index),
        request.method,
      ),
    );
  const target = targetOf(deps.environments, request, file);
  if (!target.ok)
    throw new MobilityError(
      target.reason === 'noEnvironment'
        ? 'PATH_INVALID'
        : target.reason === 'authorization'
          ? 'AUTHORIZATION_GIVEN'
          : 'USAGE',
      target.message,
    );
  const { environment, resolved } = target;
  const headers = Object.fromEntries(
    Object.entries(resolved.headers).filter(([name]) => !/^(content-type|host|content-length)$/i.test(name)),
  );
  const prepared: PreparedRequest = {
    environment,
    request: freeRequest(environment.api, target.path, undefined, Object.keys(headers).length ? headers : undefined),
    title: request.name ? `${request.name} · GET ${target.path}` : `GET ${target.path}`,
    authorization: resolved.authorization,
  };
  if (request.assertions?.length)
    prepared.assertions = requestAssertions(file, request, { baseUrl: withoutTrailingSlashes(environment.baseUrl) });
  return { prepared, requestName: request.name };
}

/** An untitled `.http` document (so that the CodeLens applies) that is not open yet, beside the workspace's files. */
function untitledUri(env: Environment): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.path ?? '/';
  const open = new Set(vscode.workspace.textDocuments.map((d) => d.uri.toString()));
  const stem = `mobility-api-${env.id.replace(/[^a-z0-9-]+/gi, '-')}`;
  for (let n = 1; ; n++) {
    const uri = vscode.Uri.from({
      scheme: 'untitled',
      path: path.posix.join(folder, `${stem}${n > 1 ? `-${n}` : ''}.http`),
    });
    if (!open.has(uri.toString())) return uri;
  }
}

/**
 * A starter request file for `env`: one named request per catalogue endpoint, required parameters
 * filled with their defaults (the last complete UTC hour, …), and file variables for those that
 * have none (a device id): `served` values where the environment gives them (a vehicle of the sandbox), else the
 * catalogue's examples. `{{baseUrl}}` is not defined in the file: it is the active environment's.
 */
export function starterFile(env: Environment, nowMs: number, served: Record<string, string> = {}): string {
  const lines = [
    `# Mobility API requests · ${API_LABELS[env.api]} (written for ${env.name})`,
    '#',
    '# {{baseUrl}} is the base URL of the ACTIVE environment: switch the environment (status bar) and the same',
    '# requests go to staging, production or the local sandbox. "Send with fresh token" above a request signs',
    '# a new token for every send: no token or key belongs in this file. A request that sets its own',
    '# Authorization header is refused, unless the line "# @authorization as-is" above it asks to send it as',
    '# written (a token used before is refused by the server).',
    '',
  ];
  const endpoints = catalogueOf(env.api);
  const variables = new Map<string, string>();
  for (const e of endpoints) {
    for (const p of e.parameters)
      if (!p.defaultValue && p.required) variables.set(p.name, served[p.name] ?? `${p.example}`);
  }
  if (variables.size) {
    lines.push(
      Object.keys(served).some((name) => variables.has(name))
        ? `# Ids ${env.name} serves; for your own fleet, replace them with its ids:`
        : '# Replace these with ids of your own fleet:',
    );
    for (const [name, value] of variables) lines.push(`@${name} = ${value}`);
    lines.push('');
  }
  for (const e of endpoints) lines.push(...requestLines(e, nowMs), '');
  return lines.join('\n');
}

function requestLines(endpoint: CatalogueEndpoint, nowMs: number): string[] {
  const defaults = endpointDefaults(endpoint, nowMs);
  let target = endpoint.pathTemplate;
  const query: string[] = [];
  for (const p of endpoint.parameters) {
    const value = defaults[p.name] ?? `{{${p.name}}}`;
    if (p.in === 'path') target = target.replace(`{${p.name}}`, value);
    else query.push(`${p.name}=${encodeURIComponent(value)}`);
  }
  const lines = [
    '###',
    `# ${endpoint.title}${endpoint.parameters.length ? `: ${endpoint.parameters.map((p) => `${p.name} ${p.formatDescription}`).join('; ')}` : ''}`,
    `# @name ${endpoint.id}`,
  ];
  lines.push(`GET {{baseUrl}}${target}${query.length ? `?${query.join('&')}` : ''}`);
  if (endpoint.accept) lines.push(`Accept: ${endpoint.accept}`);
  return lines;
}
