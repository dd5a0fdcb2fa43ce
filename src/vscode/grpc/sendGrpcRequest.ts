// Call gRPC Method… (command id mobilityApi.sendGrpcRequest, kept for users' key bindings): a method of an environment's gRPC services (the tree's method row, or picked: environment, then
// method) opened as a GRPC request in an untitled `.http` document, its body the request message's template, so that
// the user edits the message and sends it from the request's CodeLens, with a fresh token on every send.
import path from 'node:path';
import * as vscode from 'vscode';
import type { Environment } from '../../core/environment';
import { MobilityError } from '../../core/base';
import type { GrpcMethodInfo } from '../../core/grpc';
import { grpcRequestText, parseRequestFile } from '../../core/http';
import { methodPickRows } from '../../results/grpc/grpcListing';
import { grpcEndpointOf } from './grpcService';
import type { CommandDeps, CommandOutcome } from '../platform/commandDeps';
import { COMMANDS } from '../platform/commandIds';
import { prepareGrpcRequest } from './grpcFileRequests';
import type { PreparedGrpcFileRequest } from '../requests/preparedRequests';
import { pickEnvironment, resolveCredential } from '../environments/pickers';
import { Cancelled, registerCommand } from '../platform/registerCommand';

/** What the tree's method row passes: the environment and the method's full name (`/package.Service/Method`). */
export interface GrpcMethodTarget {
  environmentId?: string;
  method?: string;
}

export function registerSendGrpcRequest(deps: CommandDeps): vscode.Disposable {
  return registerCommand(deps, COMMANDS.sendGrpcRequest, async (target?: GrpcMethodTarget): Promise<CommandOutcome> => {
    const { env, method, text } = await grpcMethodTemplate(
      deps,
      target,
      vscode.l10n.t('Call a gRPC method of which environment?'),
    );
    const uri = untitledUri(method);
    const document = await vscode.workspace.openTextDocument(uri);
    const edit = new vscode.WorkspaceEdit();
    edit.insert(uri, new vscode.Position(0, 0), text);
    await vscode.workspace.applyEdit(edit);
    if (document.languageId !== 'http') await vscode.languages.setTextDocumentLanguage(document, 'http');
    const editor = await vscode.window.showTextDocument(document, { preview: false });
    // The cursor on the message's first field, ready to edit.
    const lines = text.split('\n');
    const body = lines.findIndex((line) => line.startsWith('{'));
    const cursor = lines[body + 1]?.startsWith('  ')
      ? new vscode.Position(body + 1, 2)
      : new vscode.Position(Math.max(body, 0), 1);
    editor.selection = new vscode.Selection(cursor, cursor);
    return { ok: true, environmentId: env.id, method: method.fullName, uri: uri.toString(), text };
  });
}

/**
 * A method of an environment's gRPC services (given, else picked) as the text of a GRPC request, its message the
 * request type's template: the active environment's request follows it (`{{grpcTarget}}`), another's names its target.
 */
async function grpcMethodTemplate(
  deps: CommandDeps,
  target: GrpcMethodTarget | undefined,
  placeHolder: string,
  literalTarget = false,
): Promise<{ env: Environment; method: GrpcMethodInfo; text: string }> {
  const env = await grpcEnvironment(deps, target?.environmentId, placeHolder);
  const endpoint = grpcEndpointOf(env);
  const listing = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Loading the gRPC services of {0}…', env.name) },
    // Asking for a credential only when the server wants reflection authenticated.
    () => deps.grpc.servicesWithAuth(env, async () => (await resolveCredential(deps, env)).credential),
  );
  const all = listing.services.flatMap((s) => s.methods);
  const method = target?.method
    ? all.find((m) => m.fullName === target.method || m.fullName === `/${target.method}`)
    : await pickMethod(env, listing.services);
  if (!method) {
    throw new MobilityError(
      'GRPC_METHOD_UNKNOWN',
      vscode.l10n.t(
        '{0} has no gRPC method {1} (any more): refresh the gRPC services in the Environments view.',
        env.name,
        target?.method ?? '',
      ),
    );
  }
  const message = await deps.grpc.template(env, method.fullName, listing.auth);
  const text = grpcRequestText({
    method: method.fullName,
    message,
    targetVariable: !literalTarget && deps.environments.activeId === env.id,
    target: endpoint.target,
  });
  return { env, method, text };
}

/** A method of an environment's gRPC services with its message template, prepared as a GRPC request (Copy as Code on the tree's method). */
export async function grpcMethodRequest(
  deps: CommandDeps,
  target: GrpcMethodTarget,
): Promise<{ prepared: PreparedGrpcFileRequest }> {
  const { env, text } = await grpcMethodTemplate(
    deps,
    target,
    vscode.l10n.t('Copy a gRPC call of which environment as code?'),
    true,
  );
  const file = parseRequestFile(text);
  const request = file.requests[0];
  if (!request)
    throw new MobilityError(
      'GRPC_METHOD_UNKNOWN',
      vscode.l10n.t('No request could be written for {0}.', target.method ?? ''),
    );
  const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath;
  return { prepared: prepareGrpcRequest(deps, file, request, folder, env) };
}

/** The environment given, else one the user picks among those with a gRPC target. */
export async function grpcEnvironment(
  deps: CommandDeps,
  environmentId: string | undefined,
  placeHolder: string,
): Promise<Environment> {
  if (!environmentId && !deps.environments.all().some((e) => e.grpc)) {
    throw new MobilityError(
      'GRPC_TARGET_INVALID',
      vscode.l10n.t(
        'No environment has a gRPC target yet. Start the local sandbox (its environments have theirs), or use "Set gRPC Target…" on an environment in the Environments view.',
      ),
    );
  }
  return pickEnvironment(deps, environmentId ? { environmentId } : undefined, placeHolder, (e) => e.grpc !== undefined);
}

async function pickMethod(env: Environment, services: Parameters<typeof methodPickRows>[0]): Promise<GrpcMethodInfo> {
  const rows = methodPickRows(services);
  if (rows.length === 0)
    throw new MobilityError(
      'GRPC_METHOD_UNKNOWN',
      vscode.l10n.t('The gRPC server of {0} offers no services.', env.name),
    );
  const picked = await vscode.window.showQuickPick(
    rows.map((r) => ({ label: r.label, description: r.description, detail: r.tooltip.join(' '), method: r.method })),
    {
      placeHolder: vscode.l10n.t('Which method of {0}?', env.name),
      matchOnDescription: true,
      matchOnDetail: true,
      ignoreFocusOut: true,
    },
  );
  if (!picked) throw new Cancelled();
  return picked.method;
}

/** An untitled `.http` document named after the method, not taken by an open document. */
function untitledUri(method: GrpcMethodInfo): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.path ?? '/';
  const open = new Set(vscode.workspace.textDocuments.map((d) => d.uri.toString()));
  const stem = `grpc-${method.name.replace(/[^A-Za-z0-9-]+/g, '-')}`;
  for (let n = 1; ; n++) {
    const uri = vscode.Uri.from({
      scheme: 'untitled',
      path: path.posix.join(folder, `${stem}${n > 1 ? `-${n}` : ''}.http`),
    });
    if (!open.has(uri.toString())) return uri;
  }
}
