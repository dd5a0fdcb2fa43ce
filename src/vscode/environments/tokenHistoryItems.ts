// The Environments view's rows of the tokens issued this session (environmentsTree.ts): "Tokens this session" under an
// environment, and one row per token, described by its jti, times and use, never by its text.
import * as vscode from 'vscode';
import { maskKeyId } from '../../core/base';
import { COMMANDS } from '../platform/commandIds';
import type { TokenHistoryEntry } from '../tokens/tokenHistory';

/** "Tokens this session" under environment `environmentId`, with `count` tokens. */
export function tokenHistoryItem(environmentId: string, count: number): vscode.TreeItem {
  const item = new vscode.TreeItem(vscode.l10n.t('Tokens this session'), vscode.TreeItemCollapsibleState.Collapsed);
  item.id = `tokenHistory:${environmentId}`;
  item.description = String(count);
  item.iconPath = new vscode.ThemeIcon('history');
  item.contextValue = 'tokenHistory';
  item.tooltip = vscode.l10n.t(
    'The tokens issued for this environment in this window, newest first. Kept in memory only: a reload clears them.',
  );
  return item;
}

/** One token of the session (undefined: no longer held): its jti, when it was issued and used; a click decodes it. */
export function historyTokenItem(entry: TokenHistoryEntry | undefined): vscode.TreeItem {
  if (!entry) return new vscode.TreeItem(vscode.l10n.t('(no longer held)'));
  const item = new vscode.TreeItem(entry.jti);
  item.id = `historyToken:${entry.id}`;
  item.description = describeUse(entry);
  const expired = entry.exp * 1000 <= Date.now();
  const failed = entry.request?.status !== undefined && (entry.request.status < 200 || entry.request.status >= 300);
  item.iconPath = new vscode.ThemeIcon(failed ? 'error' : expired ? 'watch' : 'key');
  item.contextValue = 'historyToken';
  const time = (seconds: number) =>
    `${new Date(seconds * 1000).toLocaleString()} (${new Date(seconds * 1000).toISOString()})`;
  const tooltip = new vscode.MarkdownString();
  tooltip.appendText(`jti ${entry.jti}\nkid ${maskKeyId(entry.kid)}\n`);
  tooltip.appendText(vscode.l10n.t('Issued {0}', time(entry.iat)) + '\n');
  tooltip.appendText(
    (expired ? vscode.l10n.t('Expired {0}', time(entry.exp)) : vscode.l10n.t('Expires {0}', time(entry.exp))) + '\n',
  );
  if (entry.request)
    tooltip.appendText(`GET ${entry.request.url} → ${entry.request.status ?? '?'} ${entry.request.statusText ?? ''}`);
  item.tooltip = tooltip;
  item.command = {
    command: COMMANDS.openDecodedToken,
    title: vscode.l10n.t('Open Decoded Token'),
    arguments: [{ historyId: entry.id }],
  };
  return item;
}

/** "10:42:03 → 10:47:03 · GET 401", "10:42:03 → 10:47:03 · generated". */
function describeUse(entry: TokenHistoryEntry): string {
  const times = `${new Date(entry.iat * 1000).toLocaleTimeString()} → ${new Date(entry.exp * 1000).toLocaleTimeString()}`;
  switch (entry.use) {
    case 'request':
      return `${times} · GET ${entry.request?.status ?? ''} ${pathOf(entry.request?.url)}`.trimEnd();
    case 'curl':
      return `${times} · ${vscode.l10n.t('curl')}`;
    case 'copied':
      return `${times} · ${vscode.l10n.t('copied')}`;
    default:
      return `${times} · ${vscode.l10n.t('generated')}`;
  }
}

function pathOf(url: string | undefined): string {
  if (!url) return '';
  try {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  } catch {
    return url;
  }
}
