import * as vscode from 'vscode';
import { decodeJwt, findJwtAt, findJwts, stripTokenText } from '../../core/auth';
import { MobilityError } from '../../core/base';
import type { CommandDeps, CommandOutcome } from '../platform/commandDeps';
import { COMMANDS } from '../platform/commandIds';
import { Cancelled, registerCommand } from '../platform/registerCommand';
import { inspectToken } from './tokenInspection';

/**
 * Decode JWT: from an argument, the editor selection (or the token under the cursor), else the
 * user picks the clipboard's token (when it holds one; described by its claims) or pastes one. Opens the decoded view with lint findings, and
 * verifies the signature when a stored credential has the token's kid.
 */
export function registerDecodeJwt(deps: CommandDeps): vscode.Disposable {
  return registerCommand(deps, COMMANDS.decodeJwt, async (text?: unknown): Promise<CommandOutcome> => {
    const { token, source } = await tokenText(typeof text === 'string' ? text : undefined);
    const inspected = await inspectToken(deps, token);
    if ('reason' in inspected)
      throw new MobilityError('USAGE', vscode.l10n.t('This is not a JWT: {0}', inspected.reason));
    // The user handed this token in: its kid is shown whole (it is their own text).
    deps.results.showToken({
      token,
      decoded: inspected.decoded,
      findings: inspected.findings,
      signature: inspected.signature,
      source,
      userGiven: true,
    });
    return {
      ok: true,
      source,
      header: inspected.decoded.header,
      payload: inspected.decoded.payload,
      findings: inspected.findings.map((f) => f.id),
      signature: inspected.signature?.state ?? 'not-verified',
    };
  });
}

async function tokenText(given: string | undefined): Promise<{ token: string; source: string }> {
  if (given !== undefined) return { token: stripTokenText(given), source: vscode.l10n.t('Decoded') };
  const editor = vscode.window.activeTextEditor;
  if (editor) {
    const selected = editor.document.getText(editor.selection);
    if (selected.trim())
      return { token: stripTokenText(selected), source: vscode.l10n.t('Decoded from the selection') };
    const onLine = findJwtAt(
      editor.document.lineAt(editor.selection.active.line).text,
      editor.selection.active.character,
    );
    if (onLine) return { token: onLine.token, source: vscode.l10n.t('Decoded from the editor') };
  }
  const clipboard = await vscode.env.clipboard.readText();
  const inClipboard = clipboard.length <= 1_000_000 ? findJwts(clipboard, 1)[0] : undefined;
  const clipboardToken =
    inClipboard && stripTokenText(clipboard) === clipboard.slice(inClipboard.start, inClipboard.end)
      ? clipboard.slice(inClipboard.start, inClipboard.end)
      : undefined;
  // The clipboard may hold a token from anywhere: the user says whether to decode it. The item describes
  // it by claims only; the token itself never goes into UI text (an input box's value can be persisted).
  if (clipboardToken) {
    const fromClipboard = vscode.l10n.t('$(clippy) Token from the clipboard');
    const picked = await vscode.window.showQuickPick(
      [
        { label: fromClipboard, description: describeForPick(clipboardToken), take: 'clipboard' as const },
        {
          label: vscode.l10n.t('$(edit) Paste a token…'),
          description: vscode.l10n.t('in a password box; not stored'),
          take: 'paste' as const,
        },
      ],
      {
        title: vscode.l10n.t('Decode JWT'),
        placeHolder: vscode.l10n.t('Decode which token? (Select a token in an editor to skip this question.)'),
        ignoreFocusOut: true,
      },
    );
    if (!picked) throw new Cancelled();
    if (picked.take === 'clipboard')
      return { token: clipboardToken, source: vscode.l10n.t('Decoded from the clipboard') };
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

/** "kid k1, iss org@x.example, expires in 4 min": claims a user recognises a token by, never the token. */
function describeForPick(token: string): string {
  const decoded = decodeJwt(token);
  if (!decoded.ok) return vscode.l10n.t('not a readable JWT: {0}', decoded.reason);
  const { header, payload, times } = decoded.token;
  const parts: string[] = [];
  if (typeof header.kid === 'string') parts.push(`kid ${shown(header.kid)}`);
  if (typeof payload.iss === 'string') parts.push(`iss ${shown(payload.iss)}`);
  parts.push(times.exp ? times.exp.relative : vscode.l10n.t('no exp'));
  return parts.join(', ');
}

/** Claim text is data: no control characters, no codicon syntax, and short. */
function shown(value: string): string {
  // eslint-disable-next-line no-control-regex
  const plain = value.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').replace(/\$\(/g, '$\u200b(');
  return plain.length > 48 ? `${plain.slice(0, 47)}…` : plain;
}
