import * as path from 'node:path';
import * as vscode from 'vscode';
import { findJwtAt } from '../../core/auth';
import type { CommandDeps } from '../platform/commandDeps';
import { COMMANDS } from '../platform/commandIds';
import { inspectToken } from './tokenInspection';
import { hoverMarkdown } from './hoverMarkdown';
import type { TokenHandles } from './tokenHandles';

/** Every document: files, untitled buffers, and anything else with text (output, diff, git, remote). */
const ALL_DOCUMENTS: vscode.DocumentSelector = [{ scheme: 'file' }, { scheme: 'untitled' }, '*'];

/** What the "Open decoded view" link passes to {@link COMMANDS.openDecodedToken}: an id, never the token. */
export interface TokenHandleArgument {
  handle: string;
  source?: string;
}

/**
 * The JWT hover: over a compact JWT anywhere (in quotes, after `Bearer `, in `.env`, `.http`, JSON,
 * logs) it shows the decoded header and payload, the times in local time and relative to now, the
 * signature state and the spec lint findings, with a link to the full decoded view. Only the hovered
 * line is read, and findJwtAt looks at a bounded window of it, so a large file costs nothing extra.
 */
export function registerJwtHover(deps: CommandDeps, handles: TokenHandles): vscode.Disposable {
  const provider: vscode.HoverProvider = {
    async provideHover(document, position, cancel) {
      if (position.line >= document.lineCount) return undefined;
      const found = findJwtAt(document.lineAt(position.line).text, position.character);
      if (!found) return undefined;
      const inspected = await inspectToken(deps, found.token);
      if ('reason' in inspected || cancel.isCancellationRequested) return undefined;
      const argument: TokenHandleArgument = {
        handle: handles.handleFor(found.token),
        source: vscode.l10n.t(
          'Hovered in {0}, line {1}',
          document.uri.scheme === 'file' || document.uri.scheme === 'untitled'
            ? path.basename(document.uri.path)
            : document.uri.scheme,
          position.line + 1,
        ),
      };
      const link = `command:${COMMANDS.openDecodedToken}?${encodeURIComponent(JSON.stringify([argument]))}`;
      const markdown = new vscode.MarkdownString(
        hoverMarkdown({
          decoded: inspected.decoded,
          findings: inspected.findings,
          signature: inspected.signature,
          openLink: link,
        }),
      );
      // Trusted for the one command only: claim text is escaped, and no other command link can run.
      markdown.isTrusted = { enabledCommands: [COMMANDS.openDecodedToken] };
      markdown.supportHtml = false;
      markdown.supportThemeIcons = false;
      return new vscode.Hover(markdown, new vscode.Range(position.line, found.start, position.line, found.end));
    },
  };
  return vscode.languages.registerHoverProvider(ALL_DOCUMENTS, provider);
}
