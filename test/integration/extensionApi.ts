import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { MobilityApiExports } from '../../src/extension';

/** What every command of the extension returns. */
export type Outcome = { ok: boolean; code?: string; message?: string } & Record<string, unknown>;

/** Runs a command as a caller (or a test) does, and returns its outcome (typed more closely with `T`). */
export const run = <T extends Outcome = Outcome>(command: string, ...args: unknown[]) => vscode.commands.executeCommand<T>(command, ...args);

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
