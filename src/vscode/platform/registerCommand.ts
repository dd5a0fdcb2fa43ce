import * as vscode from 'vscode';
import { errorMessage, isCancelled, isMobilityError, MobilityError, redactSecrets } from '../../core/base';
import type { CommandDeps, CommandOutcome } from './commandDeps';
import { COMMANDS } from './commandIds';

/**
 * A user who dismissed a picker: not an error, nothing to show. A MobilityError with the one code of cancellation, so
 * that it is recognised by its code in every bundle (a plain class would fail `instanceof` across bundles).
 */
export class Cancelled extends MobilityError {
  constructor(message = 'cancelled') {
    super('CANCELLED', message);
  }

  /** A cancellation from any bundle, and nothing else (MobilityError's own check would take every MobilityError). */
  static [Symbol.hasInstance](value: unknown): value is Cancelled {
    return isCancelled(value);
  }
}

/**
 * Registers a command with the shell's error handling: a failure is logged in full (redacted) and
 * shown as one clear message, with an action where one helps; the command then returns
 * `{ ok: false, code, message }` instead of throwing.
 */
export function registerCommand<A extends unknown[]>(
  deps: CommandDeps,
  id: string,
  handler: (...args: A) => Promise<CommandOutcome | undefined>,
): vscode.Disposable {
  return vscode.commands.registerCommand(id, async (...args: A): Promise<CommandOutcome | undefined> => {
    try {
      return await handler(...args);
    } catch (err) {
      // The user dismissed a question or pressed Cancel on the progress notification: nothing to report.
      if (isCancelled(err)) {
        deps.log.info(id, err.message);
        return { ok: false, code: err.code, message: err.message };
      }
      deps.log.error(id, err);
      const code = isMobilityError(err) ? err.code : 'UNEXPECTED';
      const message = isMobilityError(err)
        ? err.message
        : vscode.l10n.t('Something went wrong: {0}. The log has the details.', redactSecrets(errorMessage(err)));
      void showError(deps, code, message);
      return { ok: false, code, message };
    }
  });
}

async function showError(deps: CommandDeps, code: string, message: string): Promise<void> {
  const actions: Array<{ title: string; run: () => Thenable<unknown> }> = [];
  const openSettings = vscode.l10n.t('Open Settings');
  const addCredential = vscode.l10n.t('Add Credential');
  const startSandbox = vscode.l10n.t('Start Local Sandbox');
  if (code === 'BASE_URL_MISSING' || code === 'BASE_URL_INVALID' || code === 'AUDIENCE_INVALID') {
    actions.push({ title: openSettings, run: () => vscode.commands.executeCommand(COMMANDS.openSettings) });
  }
  if (code === 'NO_CREDENTIAL' || code === 'CREDENTIAL_NOT_FOR_API') {
    actions.push({ title: addCredential, run: () => vscode.commands.executeCommand(COMMANDS.addCredential) });
    if (!deps.sandbox.isRunning)
      actions.push({ title: startSandbox, run: () => vscode.commands.executeCommand(COMMANDS.startSandbox) });
  }
  if ((code === 'HTTP_CONNECTION_REFUSED' || code === 'SANDBOX_NOT_RUNNING') && !deps.sandbox.isRunning) {
    actions.push({ title: startSandbox, run: () => vscode.commands.executeCommand(COMMANDS.startSandbox) });
  }
  const showLog = vscode.l10n.t('Show Log');
  actions.push({ title: showLog, run: () => vscode.commands.executeCommand(COMMANDS.showLog) });
  const picked = await vscode.window.showErrorMessage(message, ...actions.map((a) => a.title));
  await actions.find((a) => a.title === picked)?.run();
}
