import * as vscode from 'vscode';
import { stripTokenText } from '../core/decodeJwt';
import { findJwtAt, findJwts } from '../core/findJwts';
import { MobilityError } from '../core/errors';
import type { CommandDeps, CommandOutcome } from './commandDeps';
import { COMMANDS } from './commandIds';
import { Cancelled, registerCommand } from './registerCommand';
import { inspectToken } from '../services/tokenInspection';

/**
 * Decode JWT: from an argument, the editor selection (or the token under the cursor), the
 * clipboard when it holds one, else an input box. Opens the decoded view with lint findings, and
 * verifies the signature when a stored credential has the token's kid.
 */
export function registerDecodeJwt(deps: CommandDeps): vscode.Disposable {
  return registerCommand(deps, COMMANDS.decodeJwt, async (text?: unknown): Promise<CommandOutcome> => {
    const { token, source } = await tokenText(typeof text === 'string' ? text : undefined);
    const inspected = await inspectToken(deps, token);
    if ('reason' in inspected) throw new MobilityError('USAGE', vscode.l10n.t('This is not a JWT: {0}', inspected.reason));
    deps.results.showToken({ token, decoded: inspected.decoded, findings: inspected.findings, signature: inspected.signature, source });
    return { ok: true, header: inspected.decoded.header, payload: inspected.decoded.payload, findings: inspected.findings.map((f) => f.id), signature: inspected.signature?.state ?? 'not-verified' };
  });
}

async function tokenText(given: string | undefined): Promise<{ token: string; source: string }> {
  if (given !== undefined) return { token: stripTokenText(given), source: vscode.l10n.t('Decoded') };
  const editor = vscode.window.activeTextEditor;
  if (editor) {
    const selected = editor.document.getText(editor.selection);
    if (selected.trim()) return { token: stripTokenText(selected), source: vscode.l10n.t('Decoded from the selection') };
    const onLine = findJwtAt(editor.document.lineAt(editor.selection.active.line).text, editor.selection.active.character);
    if (onLine) return { token: onLine.token, source: vscode.l10n.t('Decoded from the editor') };
  }
  const clipboard = await vscode.env.clipboard.readText();
  const inClipboard = clipboard.length <= 1_000_000 ? findJwts(clipboard, 1)[0] : undefined;
  if (inClipboard && stripTokenText(clipboard) === clipboard.slice(inClipboard.start, inClipboard.end)) {
    return { token: clipboard.slice(inClipboard.start, inClipboard.end), source: vscode.l10n.t('Decoded from the clipboard') };
  }
  const typed = await vscode.window.showInputBox({
    title: vscode.l10n.t('Decode JWT'),
    prompt: vscode.l10n.t('Paste a token (a leading "Bearer " is fine). It is decoded here and not stored.'),
    password: true,
    ignoreFocusOut: true,
  });
  if (!typed) throw new Cancelled();
  return { token: stripTokenText(typed), source: vscode.l10n.t('Decoded from input') };
}
