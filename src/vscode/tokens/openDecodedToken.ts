import * as vscode from 'vscode';
import { MobilityError } from '../../core/base';
import type { TokenHandles } from './tokenHandles';
import type { CommandDeps, CommandOutcome } from '../platform/commandDeps';
import { COMMANDS } from '../platform/commandIds';
import { heldToken } from './heldTokens';
import { registerCommand } from '../platform/registerCommand';
import { inspectToken } from './tokenInspection';

/**
 * Open Decoded Token (a hover link, a token-history item) and Copy Issued Token (a history item). Both
 * take an id of a token the window holds, never the token itself, so that no link, tree item or
 * command argument carries a bearer token.
 */
export function registerTokenHistoryCommands(deps: CommandDeps, handles: TokenHandles): vscode.Disposable[] {
  const gone = () =>
    new MobilityError(
      'USAGE',
      vscode.l10n.t(
        'This token is no longer held: tokens are kept in memory for this window only. Hover it again, or issue a new one.',
      ),
    );
  return [
    registerCommand(deps, COMMANDS.openDecodedToken, async (arg?: unknown): Promise<CommandOutcome> => {
      const held = heldToken(deps, handles, arg);
      if (!held) throw gone();
      const inspected = await inspectToken(deps, held.token);
      if ('reason' in inspected)
        throw new MobilityError('USAGE', vscode.l10n.t('This is not a JWT: {0}', inspected.reason));
      // A hovered token is the user's own text (its kid shown whole); one of the history was signed here (masked).
      deps.results.showToken({
        environment: held.environment,
        token: held.token,
        decoded: inspected.decoded,
        findings: inspected.findings,
        signature: inspected.signature,
        source: held.source,
        userGiven: !held.entry,
      });
      return {
        ok: true,
        source: held.source,
        header: inspected.decoded.header,
        payload: inspected.decoded.payload,
        findings: inspected.findings.map((f) => f.id),
        signature: inspected.signature?.state ?? 'not-verified',
      };
    }),
    registerCommand(deps, COMMANDS.copyIssuedToken, async (arg?: unknown): Promise<CommandOutcome> => {
      const held = heldToken(deps, handles, arg);
      if (!held) throw gone();
      await vscode.env.clipboard.writeText(held.token);
      deps.log.info('token', `copied a token of this session to the clipboard (jti ${held.entry?.jti ?? 'unknown'})`);
      void vscode.window.showInformationMessage(
        held.entry?.use === 'request'
          ? vscode.l10n.t(
              'Copied the token. It was already sent once; a server that enforces one token per request refuses it again.',
            )
          : vscode.l10n.t('Copied the token. Treat it like a password; it expires at its exp time.'),
      );
      return { ok: true, jti: held.entry?.jti };
    }),
  ];
}
