// The GRPC requests of `.http` files: which environment a request goes to (its token's audience is that environment's
// base URL, spec 5.3) and the CodeLens above it: Send with fresh token, Copy as grpcurl, Copy as Code.
import * as vscode from 'vscode';
import type { Environment } from '../../core/environment';
import { withoutTrailingSlashes } from '../../core/environment';
import { errorMessage, isMobilityError } from '../../core/base';
import type { FileRequest, RequestFile, ResolvedGrpcFileRequest } from '../../core/http';
import { resolveGrpcFileRequest } from '../../core/http';
import type { EnvironmentRegistry } from '../environments/environmentRegistry';
import { COMMANDS } from '../platform/commandIds';

/** Where a GRPC request of a file goes: the environment that signs for it and the request resolved, or why not. */
export type GrpcFileTarget =
  | { ok: true; environment: Environment; resolved: ResolvedGrpcFileRequest }
  | { ok: false; reason: 'unresolved' | 'authorization' | 'noGrpcTarget' | 'noEnvironment'; message: string };

/** `host:port` compared as gRPC reads it: a host alone is port 443, host names in any case. */
function normalTarget(target: string): string {
  const t = target.trim().toLowerCase();
  return /:\d+$/.test(t) ? t : `${t}:443`;
}

/**
 * Resolves `request` with `{{grpcTarget}}` = the active environment's gRPC target (and `{{baseUrl}}` its base URL),
 * then finds the environment whose gRPC target the request's target is: the active one first, then any other. A
 * target that is no environment's is refused: the token is signed for one environment's audience.
 */
export function grpcTargetOf(
  environments: EnvironmentRegistry,
  request: FileRequest,
  file: RequestFile,
  prefer?: Environment,
): GrpcFileTarget {
  const active = environments.active();
  const given: Record<string, string> = {};
  if (active?.baseUrl) given.baseUrl = withoutTrailingSlashes(active.baseUrl);
  if (active?.grpc) given.grpcTarget = active.grpc.target;
  if (
    !given.grpcTarget &&
    /\{\{\s*grpcTarget\s*\}\}/.test(request.grpc?.target ?? '') &&
    !file.variables.has('grpcTarget')
  ) {
    return {
      ok: false,
      reason: active ? 'noGrpcTarget' : 'unresolved',
      message: active
        ? vscode.l10n.t(
            '{{grpcTarget}} is the gRPC target of the active environment, and {0} has none. Pick an environment that has one (the sandbox\'s have), or use "Set gRPC Target…" on {0} in the Environments view.',
            active.name,
          )
        : vscode.l10n.t(
            "{{grpcTarget}} is the gRPC target of the active environment: pick an environment that has one (the sandbox's have).",
          ),
    };
  }
  let resolved: ResolvedGrpcFileRequest;
  try {
    resolved = resolveGrpcFileRequest(request, file, given);
  } catch (err) {
    return {
      ok: false,
      reason: isMobilityError(err) && err.code === 'AUTHORIZATION_GIVEN' ? 'authorization' : 'unresolved',
      message: errorMessage(err),
    };
  }
  // `prefer` (the tree's environment), then the active one, when several share the target.
  const first = [prefer, active].filter((e): e is Environment => e !== undefined);
  const candidates = [...first, ...environments.all().filter((e) => !first.some((f) => f.id === e.id))];
  const environment = candidates.find((e) => e.grpc && normalTarget(e.grpc.target) === normalTarget(resolved.target));
  if (environment) return { ok: true, environment, resolved };
  return {
    ok: false,
    reason: 'noEnvironment',
    message: vscode.l10n.t(
      '{0} is the gRPC target of no environment, and a token\'s audience must be an environment\'s base URL (spec 5.3). Write "GRPC {{grpcTarget}}/{1}" to call the active environment\'s target, or give an environment this target ("Set gRPC Target…" in the Environments view).',
      resolved.target,
      resolved.method,
    ),
  };
}

/** The lenses above a GRPC request line: send, Copy as grpcurl and Copy as Code; or one that says why it cannot be sent. */
export function grpcFileLenses(
  environments: EnvironmentRegistry,
  request: FileRequest,
  file: RequestFile,
  range: vscode.Range,
  args: unknown[],
): vscode.CodeLens[] {
  const target = grpcTargetOf(environments, request, file);
  if (target.ok) {
    const { environment, resolved } = target;
    const active = environments.activeId === environment.id;
    const own = resolved.authorization !== undefined;
    const what = `${resolved.method} on ${resolved.target}`;
    return [
      new vscode.CodeLens(range, {
        title: own
          ? active
            ? vscode.l10n.t('$(play) Send with its own Authorization')
            : vscode.l10n.t('$(play) Send with its own Authorization ({0})', environment.name)
          : active
            ? vscode.l10n.t('$(play) Send with fresh token')
            : vscode.l10n.t('$(play) Send with fresh token ({0})', environment.name),
        tooltip: own
          ? vscode.l10n.t(
              "gRPC {0} ({1}), with the request's own authorization as written (# @authorization as-is): no token is signed",
              what,
              environment.name,
            )
          : vscode.l10n.t(
              'gRPC {0} ({1}), with a freshly signed token in the authorization metadata',
              what,
              environment.name,
            ),
        command: COMMANDS.sendFileRequest,
        arguments: args,
      }),
      new vscode.CodeLens(range, {
        title: vscode.l10n.t('$(terminal) Copy as grpcurl'),
        tooltip: vscode.l10n.t(
          'A grpcurl command with a freshly signed token (in a shell variable on its own line), valid for one call',
        ),
        command: COMMANDS.copyGrpcurl,
        arguments: args,
      }),
      new vscode.CodeLens(range, {
        title: vscode.l10n.t('$(code) Copy as Code'),
        tooltip: vscode.l10n.t(
          'A complete Python (grpcio) or TypeScript (@grpc/grpc-js) program that signs a fresh token for this call and makes it',
        ),
        command: COMMANDS.copyAsCode,
        arguments: args,
      }),
    ];
  }
  if (target.reason === 'authorization') {
    // Clicked, the command refuses with the whole message (why, and "# @authorization as-is").
    return [
      new vscode.CodeLens(range, {
        title: vscode.l10n.t('$(warning) Sets its own Authorization: not sent (see why)'),
        tooltip: target.message,
        command: COMMANDS.sendFileRequest,
        arguments: args,
      }),
    ];
  }
  const title =
    target.reason === 'noGrpcTarget'
      ? vscode.l10n.t('$(warning) Pick an environment with a gRPC target for {{grpcTarget}}')
      : target.reason === 'noEnvironment'
        ? vscode.l10n.t('$(warning) No environment has this gRPC target: see why')
        : !environments.active()
          ? vscode.l10n.t('$(warning) Pick an environment for {{grpcTarget}}')
          : vscode.l10n.t('$(warning) Cannot resolve this request');
  // "No environment" is clicked for the whole message (it names what to write); the others pick an environment.
  return [
    new vscode.CodeLens(
      range,
      target.reason === 'noEnvironment'
        ? { title, tooltip: target.message, command: COMMANDS.sendFileRequest, arguments: args }
        : { title, tooltip: target.message, command: COMMANDS.selectEnvironment },
    ),
  ];
}
