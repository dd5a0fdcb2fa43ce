// The panel's copy buttons: a token (held host-side, never in the webview), a decoded payload, and a curl command
// with a fresh token. Each says what it copied in a notice.
import * as vscode from 'vscode';
import type { HostMessage } from '../../shared/protocol';
import type { HeldResult } from './heldResult';
import { payloadOf } from './heldResult';

/** What the copy actions need of their panel. */
export interface ClipboardPort {
  post(message: HostMessage): void;
  log: vscode.LogOutputChannel;
  logTag: string;
}

export async function copyToken(
  held: HeldResult | undefined,
  pageIndex: number | undefined,
  port: ClipboardPort,
): Promise<void> {
  const index = pageIndex ?? 0;
  const token = held?.tokens[index];
  if (!held || !token) {
    port.post({
      type: 'notice',
      level: 'error',
      text: 'This token is no longer held (the panel was reloaded). Run the request again.',
    });
    return;
  }
  await vscode.env.clipboard.writeText(token);
  port.log.info(`${port.logTag} copied a token to the clipboard`);
  const text =
    held.view.kind === 'listing'
      ? `Copied the token of page ${index + 1}. It was already sent once; a server that enforces one token per request refuses it again: use "Copy curl" for a fresh one.`
      : 'Copied the token. Treat it like a password; it expires at its exp time.';
  port.post({ type: 'notice', level: 'info', text });
}

export async function copyPayload(
  held: HeldResult | undefined,
  pageIndex: number | undefined,
  port: ClipboardPort,
): Promise<void> {
  const payload = payloadOf(held?.view, pageIndex ?? 0);
  if (!payload) {
    port.post({ type: 'notice', level: 'error', text: 'This token is no longer shown here. Open it again.' });
    return;
  }
  await vscode.env.clipboard.writeText(JSON.stringify(payload, null, 2));
  port.post({ type: 'notice', level: 'info', text: 'Copied the payload as JSON.' });
}

export async function copyCurl(held: HeldResult | undefined, resultId: string, port: ClipboardPort): Promise<void> {
  if (!held?.curlCommand) {
    port.post({
      type: 'notice',
      level: 'error',
      text: 'No curl command is available for this result. Run the request again.',
    });
    return;
  }
  port.post({ type: 'busy', resultId, action: 'copyCurl', busy: true });
  try {
    const command = await held.curlCommand();
    await vscode.env.clipboard.writeText(command);
    port.log.info(`${port.logTag} copied a curl command with a fresh token`);
    port.post({
      type: 'notice',
      level: 'info',
      text: 'Copied a curl command with a fresh token. Run it once: the token is valid for one request.',
    });
  } finally {
    port.post({ type: 'busy', resultId, action: 'copyCurl', busy: false });
  }
}

/** "Copy as grpcurl": the command with a fresh token (in a shell variable on its own line), straight to the clipboard. */
export async function copyGrpcurl(held: HeldResult | undefined, resultId: string, port: ClipboardPort): Promise<void> {
  if (!held?.grpcurlCommand) {
    port.post({
      type: 'notice',
      level: 'error',
      text: vscode.l10n.t('No grpcurl command is available for this result. Send the call again.'),
    });
    return;
  }
  port.post({ type: 'busy', resultId, action: 'copyGrpcurl', busy: true });
  try {
    const command = await held.grpcurlCommand();
    await vscode.env.clipboard.writeText(command);
    port.log.info(`${port.logTag} copied a grpcurl command with a fresh token`);
    port.post({
      type: 'notice',
      level: 'info',
      text: vscode.l10n.t('Copied a grpcurl command with a fresh token. Run it once: the token is valid for one call.'),
    });
  } finally {
    port.post({ type: 'busy', resultId, action: 'copyGrpcurl', busy: false });
  }
}
