// Writes a file the user picked: on this machine whole or not at all (a temporary file beside it, renamed onto it, as
// every export is), so that a program started on it never reads half of it; elsewhere (a remote folder) through
// VS Code's file system.
import * as vscode from 'vscode';
import { MobilityError } from '../../core/base';
import { writeChunksAtomically } from '../../results/history/exportFile';

/**
 * Writes `content` to `target`. On this machine a failure is a `USAGE` error that says what to fix; elsewhere VS
 * Code's own error is thrown as it came, for the caller to word.
 */
export async function writeWhole(target: vscode.Uri, content: string | Uint8Array): Promise<void> {
  if (target.scheme !== 'file') {
    await vscode.workspace.fs.writeFile(
      target,
      typeof content === 'string' ? new TextEncoder().encode(content) : content,
    );
    return;
  }
  const outcome = await writeChunksAtomically(target.fsPath, [content]);
  if (!outcome.ok) throw new MobilityError('USAGE', outcome.cancelled ? vscode.l10n.t('Not saved.') : outcome.message);
}
