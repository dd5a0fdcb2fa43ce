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
