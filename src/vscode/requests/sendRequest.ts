import * as vscode from 'vscode';
import type { Environment } from '../../core/environment';
import { requestUrl, withoutTrailingSlashes } from '../../core/environment';
import { errorMessage } from '../../core/base';
import type { CatalogueEndpoint } from '../../core/mds';
import { buildEndpointRequest, catalogueOf, findEndpoint, freeRequest } from '../../core/mds';
import type { CommandDeps, CommandOutcome } from '../platform/commandDeps';
import { COMMANDS } from '../platform/commandIds';
import { askEndpointValues, describeValues } from './endpointInput';
import { resolveEnvironment } from '../environments/pickers';
import { Cancelled, registerCommand } from '../platform/registerCommand';
import type { PreparedRequest, RequestRunner } from './requestRunner';

/**
 * What a tree item or a caller passes to Send Request: an environment, and an endpoint of its
 * catalogue (with its parameter values, else they are asked for), a path, or `otherPath` to ask for one.
 */
export interface SendRequestArgs {
  environmentId?: string;
  endpointId?: string;
  values?: Record<string, string>;
  /** A free path under the base URL, with a query if needed: `/trips?end_time=2025-11-05T13`. */
  path?: string;
  otherPath?: boolean;
}

const LAST_PATH_KEY = 'mobilityApi.lastFreePath';

/** Send Request… (any endpoint of the catalogue or any path) and Load All Pages (of the last result). */
export function registerSendRequest(deps: CommandDeps, runner: RequestRunner): vscode.Disposable[] {
  return [
    registerCommand(deps, COMMANDS.sendRequest, async (args?: SendRequestArgs): Promise<CommandOutcome> => {
      const env = await resolveEnvironment(
        deps,
        args?.environmentId ? { environmentId: args.environmentId } : undefined,
        vscode.l10n.t('Send a request to which environment?'),
      );
      return runner.send(await prepareRequest(deps, env, args ?? {}));
    }),
    registerCommand(deps, COMMANDS.loadAllPages, () => runner.loadAllPages()),
  ];
}

/** The request `args` name on `env` (asking for what they leave open), checked before anything is signed. */
export async function prepareRequest(
  deps: CommandDeps,
  env: Environment,
  args: SendRequestArgs,
): Promise<PreparedRequest> {
  if (args.path !== undefined) return freePrepared(deps, env, args.path);
  if (args.otherPath) return freePrepared(deps, env, await askPath(deps, env));
  const endpoint = args.endpointId ? findEndpoint(env.api, args.endpointId) : await pickEndpoint(env);
  if (!endpoint) return freePrepared(deps, env, await askPath(deps, env));
  const given =
    args.values ??
    (endpoint.parameters.length ? await askEndpointValues(deps.context.workspaceState, env, endpoint) : {});
  // Checked (defaults filled) before anything is signed: a bad value given programmatically is refused here.
  const request = buildEndpointRequest(env.api, endpoint.id, given);
  const described = describeValues(endpoint, request.values);
  return {
    environment: env,
    request,
    title: described ? `${endpoint.title} · ${described}` : endpoint.title,
    remember: endpoint.parameters.length ? { endpointId: endpoint.id, values: request.values } : undefined,
  };
}

async function freePrepared(deps: CommandDeps, env: Environment, path: string): Promise<PreparedRequest> {
  // requestUrl refuses a path that leaves the base URL, before anything is signed.
  requestUrl(env, path);
  const remembered = deps.context.workspaceState.get<Record<string, string>>(LAST_PATH_KEY, {});
  await deps.context.workspaceState.update(LAST_PATH_KEY, { ...remembered, [env.id]: path.trim() });
  return { environment: env, request: freeRequest(env.api, path), title: `GET ${path.trim()}` };
}

/** The catalogue's endpoints of the environment's API, then "Other path…" (undefined). */
async function pickEndpoint(env: Environment): Promise<CatalogueEndpoint | undefined> {
  type Item = vscode.QuickPickItem & { endpoint?: CatalogueEndpoint };
  const items: Item[] = catalogueOf(env.api).map((e) => ({
    label: e.title,
    description: e.pathTemplate,
    detail: e.parameters.length ? vscode.l10n.t('asks for {0}', e.parameters.map((p) => p.name).join(', ')) : undefined,
    endpoint: e,
  }));
  items.push({
    label: vscode.l10n.t('Other path…'),
    description: vscode.l10n.t('any path under {0}', env.baseUrl),
    alwaysShow: true,
  });
  const picked = await vscode.window.showQuickPick(items, {
    placeHolder: vscode.l10n.t('Which request to {0}?', env.name),
    matchOnDescription: true,
    ignoreFocusOut: true,
  });
  if (!picked) throw new Cancelled();
  return picked.endpoint;
}

/** A path (with a query) under the base URL, checked as it is typed; the last one of the environment is offered. */
async function askPath(deps: CommandDeps, env: Environment): Promise<string> {
  const remembered = deps.context.workspaceState.get<Record<string, string>>(LAST_PATH_KEY, {});
  const base = withoutTrailingSlashes(env.baseUrl);
  const answer = await vscode.window.showInputBox({
    title: vscode.l10n.t('Send Request · {0}', env.name),
    prompt: vscode.l10n.t(
      'A path under {0}, with a query if needed, e.g. /trips?end_time=2025-11-05T13. It must stay under the base URL: the token is signed for it.',
      base,
    ),
    value: remembered[env.id] ?? (env.api === 'maas' ? '/v1alpha2/vehicles' : '/vehicles'),
    ignoreFocusOut: true,
    validateInput: (text) => {
      if (!text.trim()) return vscode.l10n.t('Type a path such as /vehicles.');
      try {
        requestUrl(env, text);
        return undefined;
      } catch (err) {
        return errorMessage(err);
      }
    },
  });
  if (answer === undefined) throw new Cancelled();
  return answer.trim();
}
