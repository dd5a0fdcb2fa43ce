import * as vscode from 'vscode';
import type { Environment } from '../../core/environment';
import { withoutTrailingSlashes } from '../../core/environment';
import { errorMessage, isMobilityError } from '../../core/base';
import type { FileRequest, RequestFile, ResolvedFileRequest } from '../../core/http';
import { parseRequestFile, resolveFileRequest } from '../../core/http';
import type { EnvironmentRegistry } from '../environments/environmentRegistry';
import { plural } from '../../shared/format';
import { COMMANDS } from '../platform/commandIds';
import { grpcFileLenses } from '../grpc/grpcFileLens';

/**
 * The request files the CodeLens stands in: documents in the `http` language (ours, REST Client's and
 * httpYac's id; also unsaved ones), and `.http`/`.rest` files whatever language another extension gives them.
 */
export const REQUEST_FILE_SELECTOR: vscode.DocumentSelector = [{ language: 'http' }, { pattern: '**/*.{http,rest}' }];

/** Where a request of a file goes: its environment and its path under the base URL, or why it cannot be sent. */
export type FileRequestTarget =
  | { ok: true; environment: Environment; path: string; resolved: ResolvedFileRequest }
  | { ok: false; reason: 'unresolved' | 'authorization' | 'noEnvironment'; message: string };

/**
 * Resolves `request` with `{{baseUrl}}` = the active environment's base URL and finds the
 * environment whose base URL the URL is under: the active one first, then any other. A URL under
 * no environment is not sent: the token is signed for one environment's audience.
 */
export function targetOf(
  environments: EnvironmentRegistry,
  request: FileRequest,
  file: RequestFile,
): FileRequestTarget {
  const active = environments.active();
  let resolved: ResolvedFileRequest;
  try {
    resolved = resolveFileRequest(
      request,
      file,
      active?.baseUrl ? { baseUrl: withoutTrailingSlashes(active.baseUrl) } : {},
    );
  } catch (err) {
    return {
      ok: false,
      reason: isMobilityError(err) && err.code === 'AUTHORIZATION_GIVEN' ? 'authorization' : 'unresolved',
      message: errorMessage(err),
    };
  }
  const candidates = [...(active ? [active] : []), ...environments.all().filter((e) => e.id !== active?.id)];
  for (const environment of candidates) {
    const path = pathUnder(resolved.url, environment.baseUrl);
    if (path !== undefined) return { ok: true, environment, path, resolved };
  }
  return {
    ok: false,
    reason: 'noEnvironment',
    message: vscode.l10n.t(
      "{0} is under no environment's base URL: pick one, or add it as a custom environment.",
      resolved.url,
    ),
  };
}

/** `url` relative to `baseUrl` ("/trips?…"), or undefined when it is not under it. */
function pathUnder(url: string, baseUrl: string): string | undefined {
  const base = withoutTrailingSlashes(baseUrl.trim());
  if (!base) return undefined;
  if (url === base || url.startsWith(`${base}/`) || url.startsWith(`${base}?`)) return url.slice(base.length) || '/';
  return undefined;
}

/**
 * "Send with fresh token" above every GET of a request file whose URL falls under an environment, and
 * above every GRPC request whose target is an environment's (see grpcFileLens.ts); a lens that says why not above the others. Lenses follow the active environment.
 */
export class RequestFileLensProvider implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;
  private readonly subscriptions: vscode.Disposable[];
  /** The request files in a visible editor, by URI. */
  private visible = new Set<string>();
  /** How many times VS Code was told to ask again (for the integration tests). */
  refreshes = 0;

  constructor(private readonly environments: EnvironmentRegistry) {
    this.subscriptions = [
      environments.onDidChange(() => this.refresh()),
      // A request file that comes into view (Call gRPC Method's template, New Request File's starter) showed no lens
      // until it was edited: VS Code is told to ask again once its editor is there.
      vscode.window.onDidChangeVisibleTextEditors((editors) => this.editorsShown(editors)),
    ];
    this.editorsShown(vscode.window.visibleTextEditors);
  }

  private editorsShown(editors: readonly vscode.TextEditor[]): void {
    const now = new Set(
      editors
        .filter((e) => vscode.languages.match(REQUEST_FILE_SELECTOR, e.document) > 0)
        .map((e) => e.document.uri.toString()),
    );
    const appeared = [...now].some((uri) => !this.visible.has(uri));
    this.visible = now;
    if (appeared) this.refresh();
  }

  private refresh(): void {
    this.refreshes++;
    this.changed.fire();
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const file = parseRequestFile(document.getText());
    // Said once, above the first line; a lens without a command is a label.
    if (file.notText)
      return [
        new vscode.CodeLens(new vscode.Range(0, 0, 0, 0), {
          title: vscode.l10n.t('$(warning) Not a text request file'),
          tooltip: file.notText,
          command: '',
        }),
      ];
    const lenses: vscode.CodeLens[] = [];
    for (const request of file.requests) {
      if (request.method !== 'GET' && request.method !== 'GRPC') continue;
      const range = new vscode.Range(request.line, 0, request.line, 0);
      const args = [{ uri: document.uri.toString(), line: request.line }];
      const assertions = request.assertions?.length ?? 0;
      // "3 assertions": what the request checks; run from the gutter's test icon or the Testing view.
      const counted = assertions
        ? [
            new vscode.CodeLens(range, {
              title: vscode.l10n.t('$(beaker) {0}', plural(assertions, 'assertion')),
              tooltip: vscode.l10n.t(
                "Checked after each send (the result's header lists them), and run as a test from the Testing view",
              ),
              command: '',
            }),
          ]
        : [];
      if (request.method === 'GRPC') {
        lenses.push(...grpcFileLenses(this.environments, request, file, range, args), ...counted);
        continue;
      }
      const target = targetOf(this.environments, request, file);
      if (target.ok) {
        const active = this.environments.activeId === target.environment.id;
        const own = target.resolved.authorization !== undefined;
        lenses.push(
          new vscode.CodeLens(range, {
            title: own
              ? active
                ? vscode.l10n.t('$(play) Send with its own Authorization')
                : vscode.l10n.t('$(play) Send with its own Authorization ({0})', target.environment.name)
              : active
                ? vscode.l10n.t('$(play) Send with fresh token')
                : vscode.l10n.t('$(play) Send with fresh token ({0})', target.environment.name),
            tooltip: own
              ? vscode.l10n.t(
                  "GET {0} on {1}, with the request's own Authorization as written (# @authorization as-is): no token is signed",
                  target.resolved.url,
                  target.environment.name,
                )
              : vscode.l10n.t(
                  'GET {0} on {1}, with a freshly signed token',
                  target.resolved.url,
                  target.environment.name,
                ),
            command: COMMANDS.sendFileRequest,
            arguments: args,
          }),
        );
        lenses.push(
          new vscode.CodeLens(range, {
            title: vscode.l10n.t('$(code) Copy as Code'),
            tooltip: vscode.l10n.t(
              'A complete program (Python, TypeScript, Go, Java or shell) that signs a fresh token for this request and sends it',
            ),
            command: COMMANDS.copyAsCode,
            arguments: args,
          }),
        );
      } else if (target.reason === 'authorization') {
        // Clicked, the command refuses with the whole message (why, and "# @authorization as-is").
        lenses.push(
          new vscode.CodeLens(range, {
            title: vscode.l10n.t('$(warning) Sets its own Authorization: not sent (see why)'),
            tooltip: target.message,
            command: COMMANDS.sendFileRequest,
            arguments: args,
          }),
        );
      } else {
        lenses.push(
          new vscode.CodeLens(range, {
            title:
              target.reason === 'unresolved' && !this.environments.active()
                ? vscode.l10n.t('$(warning) Pick an environment for {{baseUrl}}')
                : target.reason === 'unresolved'
                  ? vscode.l10n.t('$(warning) Cannot resolve this request')
                  : vscode.l10n.t('$(warning) No environment for this URL: pick or configure one'),
            tooltip: target.message,
            command: COMMANDS.selectEnvironment,
          }),
        );
      }
      lenses.push(...counted);
    }
    return lenses;
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.changed.dispose();
  }
}
