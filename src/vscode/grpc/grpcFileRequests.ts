// A GRPC request of a `.http` file sent from its CodeLens (Send with fresh token): the environment whose gRPC target it
// names signs a fresh token for every send (the same issuer and per-key clock as REST), the answer opens in that
// environment's results panel (history, Run again, Copy as grpcurl). Also "Copy as grpcurl" (lens and panel).
import path from 'node:path';
import * as vscode from 'vscode';
import type { Credential } from '../../core/auth';
import { isMobilityError, MobilityError } from '../../core/base';
import type { Environment } from '../../core/environment';
import { withoutTrailingSlashes } from '../../core/environment';
import { requestAssertions } from '../../core/contract';
import type { GrpcAuth, GrpcCallResult } from '../../core/grpc';
import type { FileRequest, RequestFile, ResolvedGrpcFileRequest } from '../../core/http';
import { grpcurlCommand } from '../../core/http';
import { plural } from '../../shared/format';
import type { CommandDeps, CommandOutcome } from '../platform/commandDeps';
import { COMMANDS } from '../platform/commandIds';
import { grpcTargetOf } from './grpcFileLens';
import { resolveCredential } from '../environments/pickers';
import { registerCommand } from '../platform/registerCommand';
import type { FileRequestArgs, FileRequestAt } from '../requests/requestFileAt';
import { fileRequestAt, requestFileFolder } from '../requests/requestFileAt';
import type { PreparedGrpcFileRequest } from '../requests/preparedRequests';

export type { PreparedGrpcFileRequest } from '../requests/preparedRequests';

/** What sending a GRPC request of a file returns: how the call ended, never a token. */
export type GrpcFileOutcome = CommandOutcome<{
  environmentId: string;
  title: string;
  target: string;
  method: string;
  status: string;
  messages: number;
  requestName?: string;
  ownAuthorization: boolean;
}>;

/** The GRPC request at `at` resolved: its environment (by target), its endpoint and its call; refused with the lens's reason. */
export function prepareGrpcFileRequest(deps: CommandDeps, at: FileRequestAt): PreparedGrpcFileRequest {
  return prepareGrpcRequest(deps, at.file, at.request, requestFileFolder(at.document));
}

/**
 * A GRPC request of a parsed request file, ready to call; `folder` is what its relative paths are relative to, and
 * `prefer` the environment taken when several have the request's target.
 */
export function prepareGrpcRequest(
  deps: CommandDeps,
  file: RequestFile,
  request: FileRequest,
  folder: string | undefined,
  prefer?: Environment,
): PreparedGrpcFileRequest {
  const { environment, resolved } = grpcTargetOrThrow(deps, file, request, prefer);
  if (folder === undefined && [...resolved.protoFiles, ...resolved.importPaths].some((p) => !path.isAbsolute(p))) {
    throw new MobilityError(
      'USAGE',
      vscode.l10n.t(
        'The "proto <" paths of this request are relative to the request file: save the file, or open a folder (an unsaved file\'s paths are relative to the workspace folder).',
      ),
    );
  }
  const call = deps.grpc.fileCall(environment, resolved, folder ?? '');
  const short = resolved.method.replace(/^.*\.(?=[^./]+\/)/, '');
  const prepared: PreparedGrpcFileRequest = {
    environment,
    resolved,
    call,
    title: request.name ? `${request.name} · ${short}` : short,
    requestName: request.name,
  };
  if (request.assertions?.length) {
    const given: Record<string, string> = { baseUrl: withoutTrailingSlashes(environment.baseUrl) };
    if (environment.grpc) given.grpcTarget = environment.grpc.target;
    prepared.assertions = requestAssertions(file, request, given);
  }
  return prepared;
}

function grpcTargetOrThrow(
  deps: CommandDeps,
  file: RequestFile,
  request: FileRequest,
  prefer?: Environment,
): { environment: Environment; resolved: ResolvedGrpcFileRequest } {
  const target = grpcTargetOf(deps.environments, request, file, prefer);
  if (!target.ok) {
    const code =
      target.reason === 'authorization'
        ? 'AUTHORIZATION_GIVEN'
        : target.reason === 'unresolved'
          ? 'USAGE'
          : 'GRPC_TARGET_INVALID';
    throw new MobilityError(code, target.message);
  }
  return target;
}

/** "Send with fresh token" on a GRPC request: the call, its answer in the results panel. */
export async function sendGrpcFileRequest(deps: CommandDeps, at: FileRequestAt): Promise<GrpcFileOutcome> {
  const prepared = prepareGrpcFileRequest(deps, at);
  const own = prepared.resolved.authorization !== undefined;
  const signer = own ? undefined : await resolveCredential(deps, prepared.environment);
  if (own) {
    void vscode.window.showWarningMessage(
      vscode.l10n.t(
        'This request sends its own authorization as written (# @authorization as-is), not a fresh token. A token that was used before is refused (spec 5.1 rule 4): remove the metadata line and the directive, and a fresh token is signed for every send.',
      ),
    );
  }
  return runGrpcFileRequest(deps, prepared, signer);
}

async function runGrpcFileRequest(
  deps: CommandDeps,
  prepared: PreparedGrpcFileRequest,
  signer: { credential: Credential; info: { label: string } } | undefined,
): Promise<GrpcFileOutcome> {
  const { environment: env, resolved, call, title } = prepared;
  const auth: GrpcAuth | undefined = signer ? deps.grpc.auth(env, signer.credential) : undefined;
  let result: GrpcCallResult;
  try {
    result = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: vscode.l10n.t('gRPC {0} on {1}', title, env.name),
        cancellable: true,
      },
      (progress, cancel) => {
        const abort = new AbortController();
        cancel.onCancellationRequested(() => abort.abort());
        return deps.grpc.callFile(env, auth, call, {
          signal: abort.signal,
          onMessage: (_message, index) => progress.report({ message: plural(index + 1, 'message', 'messages') }),
        });
      },
    );
  } catch (err) {
    if (isMobilityError(err)) {
      deps.environments.recordResult(env.id, {
        at: Date.now(),
        ok: false,
        summary: err.code
          .replace(/^(GRPC|HTTP)_/, '')
          .toLowerCase()
          .replace(/_/g, ' '),
      });
      deps.results.showRequestError({
        environment: env,
        error: err,
        url: `${call.endpoint.target}/${resolved.method}`,
      });
    }
    throw err;
  }
  const summary = `gRPC ${result.status.name} · ${plural(result.messages.length, 'message', 'messages')}`;
  if (result.token)
    deps.tokenHistory.record(result.token, 'request', {
      url: `${call.endpoint.target}/${resolved.method}`,
      status: result.status.code,
      statusText: result.status.name,
    });
  deps.environments.recordResult(env.id, { at: Date.now(), ok: result.status.name === 'OK', summary });
  deps.log.info('grpc', `${resolved.method} on ${call.endpoint.target} (${env.name}) → ${summary}`);
  const refused = result.status.name === 'UNAUTHENTICATED' || result.status.name === 'PERMISSION_DENIED';
  deps.results.showGrpcResult({
    environment: env,
    result,
    title,
    target: call.endpoint.target,
    credentialLabel: signer?.info.label,
    runAgain: () => runGrpcFileRequest(deps, prepared, signer),
    grpcurlCommand: () => grpcurlText(deps, prepared, signer?.credential),
    codeSource: { kind: 'grpc', prepared },
    ...(prepared.assertions ? { assertions: prepared.assertions } : {}),
    refusal: signer
      ? {
          credentialType: signer.credential.type,
          ...(refused ? { keyMark: await deps.clients.keyMark(signer.credential.kid).catch(() => undefined) } : {}),
        }
      : undefined,
  });
  return {
    ok: true,
    environmentId: env.id,
    title,
    target: call.endpoint.target,
    method: resolved.method,
    status: result.status.name,
    messages: result.messages.length,
    requestName: prepared.requestName,
    ownAuthorization: !signer,
  };
}

/** The grpcurl command of `prepared` with a token signed now (or the request's own authorization). */
async function grpcurlText(
  deps: CommandDeps,
  prepared: PreparedGrpcFileRequest,
  credential: Credential | undefined,
): Promise<string> {
  const { endpoint, call } = prepared.call;
  const command = {
    target: endpoint.target,
    method: call.method,
    plaintext: endpoint.plaintext,
    caFile: endpoint.caFile,
    protoFiles: endpoint.protoFiles,
    importPaths: endpoint.importPaths,
    protoset: endpoint.protoset,
    metadata: prepared.resolved.metadata,
    messages: call.messages,
  };
  if (prepared.resolved.authorization !== undefined)
    return grpcurlCommand(command, { authorization: prepared.resolved.authorization });
  if (!credential)
    throw new MobilityError('NO_CREDENTIAL', vscode.l10n.t('A grpcurl command needs a credential to sign its token.'));
  const issued = await deps.clients.issuer.issue(credential, prepared.environment);
  deps.tokenHistory.record(issued, 'curl');
  return grpcurlCommand(command, { token: issued.token });
}

/** "Copy as grpcurl" above a GRPC request: the command with a fresh token, to the clipboard. */
export function registerCopyGrpcurl(deps: CommandDeps): vscode.Disposable {
  return registerCommand(deps, COMMANDS.copyGrpcurl, async (args?: FileRequestArgs): Promise<CommandOutcome> => {
    const at = await fileRequestAt(args);
    if (at.request.method !== 'GRPC') {
      throw new MobilityError(
        'USAGE',
        vscode.l10n.t(
          'Copy as grpcurl is for GRPC requests: write "GRPC {{grpcTarget}}/package.Service/Method" (for a GET, use Copy as Code → shell).',
        ),
      );
    }
    const prepared = prepareGrpcFileRequest(deps, at);
    const own = prepared.resolved.authorization !== undefined;
    const signer = own ? undefined : await resolveCredential(deps, prepared.environment);
    const text = await grpcurlText(deps, prepared, signer?.credential);
    await vscode.env.clipboard.writeText(text);
    deps.log.info(COMMANDS.copyGrpcurl, `a grpcurl command for ${prepared.title} on ${prepared.environment.name}`);
    void vscode.window.showInformationMessage(
      own
        ? vscode.l10n.t("Copied a grpcurl command for {0} with the request's own authorization.", prepared.title)
        : vscode.l10n.t(
            'Copied a grpcurl command for {0} with a fresh token. Run it once: the token is valid for one call.',
            prepared.title,
          ),
    );
    return {
      ok: true,
      environmentId: prepared.environment.id,
      title: prepared.title,
      lines: text.split('\n').length,
      ownAuthorization: own,
    };
  });
}
