import * as vscode from 'vscode';
import { stripTokenText } from '../../core/auth';
import { MobilityError } from '../../core/base';
import type { TokenHandles } from './tokenHandles';
import type { ComparedToken } from '../../results/tokens/compareView';
import type { CommandDeps, CommandOutcome } from '../platform/commandDeps';
import { COMMANDS } from '../platform/commandIds';
import type { HeldToken } from './heldTokens';
import { describeHistoryEntry, heldToken } from './heldTokens';
import { Cancelled, registerCommand } from '../platform/registerCommand';
import { inspectToken } from './tokenInspection';

/**
 * Compare Tokens: two tokens side by side, the claims that differ marked, for "why does this one work
 * and that one not". Each token comes from an argument (a token text, a history item, a hover handle),
 * the two history items selected in the tree, or a pick: a token of this session, the editor
 * selection, or a pasted one.
 */
export function registerCompareTokens(deps: CommandDeps, handles: TokenHandles): vscode.Disposable {
  return registerCommand(
    deps,
    COMMANDS.compareTokens,
    async (first?: unknown, second?: unknown): Promise<CommandOutcome> => {
      // From the tree with several items selected, VS Code passes (clicked item, selected items).
      let given: Array<HeldToken | undefined>;
      if (Array.isArray(second)) {
        const selected = second.map((s) => heldToken(deps, handles, s)).filter((t): t is HeldToken => !!t);
        given = selected.length >= 2 ? selected.slice(0, 2) : [fromArgument(deps, handles, first)];
      } else {
        given = [fromArgument(deps, handles, first), fromArgument(deps, handles, second)];
      }
      const left = given[0] ?? (await pickToken(deps, vscode.l10n.t('First token to compare'), undefined));
      const right = given[1] ?? (await pickToken(deps, vscode.l10n.t('Compare with which token?'), left));
      const sides: ComparedToken[] = [];
      for (const [held, which] of [
        [left, vscode.l10n.t('first')],
        [right, vscode.l10n.t('second')],
      ] as const) {
        const inspected = await inspectToken(deps, held.token);
        if ('reason' in inspected)
          throw new MobilityError('USAGE', vscode.l10n.t('The {0} token is not a JWT: {1}', which, inspected.reason));
        sides.push({
          token: held.token,
          decoded: inspected.decoded,
          findings: inspected.findings,
          signature: inspected.signature,
          source: held.source,
        });
      }
      const environment =
        left.environment && left.environment.id === right.environment?.id ? left.environment : undefined;
      deps.results.showComparison({ left: sides[0], right: sides[1], environment });
      const differing = [
        ...claimNames(sides[0].decoded.header, sides[1].decoded.header).map((n) => `header.${n}`),
        ...claimNames(sides[0].decoded.payload, sides[1].decoded.payload),
      ];
      return { ok: true, differing, left: sides[0].source, right: sides[1].source };
    },
  );
}

function fromArgument(deps: CommandDeps, handles: TokenHandles, arg: unknown): HeldToken | undefined {
  if (typeof arg === 'string' && arg.trim()) return { token: stripTokenText(arg), source: vscode.l10n.t('Given') };
  return heldToken(deps, handles, arg);
}

/** Names whose JSON values differ between two claim sets (absent counts as a value). */
function claimNames(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const names = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...names].filter((n) => JSON.stringify(a[n]) !== JSON.stringify(b[n]));
}

type TokenPick = vscode.QuickPickItem & { take: () => Promise<HeldToken> | HeldToken };

async function pickToken(deps: CommandDeps, title: string, other: HeldToken | undefined): Promise<HeldToken> {
  const items: TokenPick[] = [];
  const editor = vscode.window.activeTextEditor;
  const selected = editor ? stripTokenText(editor.document.getText(editor.selection)) : '';
  if (selected)
    items.push({
      label: vscode.l10n.t('$(selection) The editor selection'),
      take: () => ({ token: selected, source: vscode.l10n.t('Selection') }),
    });
  items.push({ label: vscode.l10n.t('$(clippy) Paste a token…'), take: () => askForToken(title) });
  const history = deps.tokenHistory.all().filter((e) => e.id !== other?.entry?.id);
  if (history.length)
    items.push({
      label: vscode.l10n.t('Issued this session'),
      kind: vscode.QuickPickItemKind.Separator,
      take: () => askForToken(title),
    });
  for (const entry of history) {
    const environment = deps.environments.get(entry.environmentId);
    items.push({
      label: `$(key) ${entry.jti}`,
      description: environment?.name ?? entry.environmentId,
      detail: describeHistoryEntry(entry, environment),
      take: () => {
        const token = deps.tokenHistory.tokenText(entry.id);
        if (!token) throw new MobilityError('USAGE', vscode.l10n.t('This token is no longer held. Pick another.'));
        return { token, source: describeHistoryEntry(entry, environment), environment, entry };
      },
    });
  }
  const picked = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('Compare Tokens'),
    placeHolder: title,
    matchOnDetail: true,
    ignoreFocusOut: true,
  });
  if (!picked) throw new Cancelled();
  return picked.take();
}

async function askForToken(title: string): Promise<HeldToken> {
  const typed = await vscode.window.showInputBox({
    title: vscode.l10n.t('Compare Tokens'),
    prompt: vscode.l10n.t('{0}: paste a token (a leading "Bearer " is fine). It is not stored.', title),
    password: true,
    ignoreFocusOut: true,
  });
  if (!typed) throw new Cancelled();
  return { token: stripTokenText(typed), source: vscode.l10n.t('Pasted') };
}
