import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { MobilityApiExports } from '../../src/extension';

/** What every command of the extension returns. */
export type Outcome = { ok: boolean; code?: string; message?: string } & Record<string, unknown>;

/** Runs a command as a caller (or a test) does, and returns its outcome (typed more closely with `T`). */
export const run = <T extends Outcome = Outcome>(command: string, ...args: unknown[]) =>
  vscode.commands.executeCommand<T>(command, ...args);

/** The extension's exports (no key material, no tokens). */
export function exportsOf(): MobilityApiExports {
  const ext = vscode.extensions.getExtension<MobilityApiExports>('mobility-api-explorer.mobility-api-explorer');
  assert.ok(ext?.isActive, 'the extension is active');
  return ext.exports;
}

/**
 * Reverts and closes every unsaved untitled editor a test opened. Left open, they would make a later debug session
 * stop to ask where to save them (`debug.saveBeforeStart`), and a later test wait on that dialog.
 */
export async function closeUnsavedUntitled(): Promise<void> {
  for (const document of vscode.workspace.textDocuments.filter((d) => d.isUntitled && d.isDirty)) {
    await vscode.window.showTextDocument(document);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  }
}

/**
 * Waits for a command that asks questions (input boxes, quick picks) to return, answering each question with
 * `answer` (VS Code commands such as 'workbench.action.acceptSelectedQuickOpenItem'): a question opens only when the
 * command gets there, so the answer is given again every 300 ms until the command returns (at most 30 s).
 */
export async function answerUntilReturned<T>(
  running: Thenable<T>,
  answer: readonly string[],
  what: string,
): Promise<T> {
  let outcome: { value: T } | undefined;
  const settled = Promise.resolve(running).then((value) => (outcome = { value }));
  for (const deadline = Date.now() + 30_000; !outcome && Date.now() < deadline;) {
    await Promise.race([settled, new Promise((r) => setTimeout(r, 300))]);
    for (const command of answer) if (!outcome) await vscode.commands.executeCommand(command);
  }
  if (!outcome) throw new Error(`${what} did not return within 30 s of answering its questions`);
  return outcome.value;
}
