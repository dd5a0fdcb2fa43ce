import * as vscode from 'vscode';
import type { Environment } from '../../core/environment';
import type { TokenHandles } from './tokenHandles';
import type { TokenHistoryEntry } from './tokenHistory';
import type { CommandDeps } from '../platform/commandDeps';

/** A token the window holds in memory: its text, where it came from, and its environment when known. */
export interface HeldToken {
  token: string;
  source: string;
  environment?: Environment;
  entry?: TokenHistoryEntry;
}

/**
 * The token a command argument refers to without carrying it: a hover handle (`{ handle }`), a
 * token-history entry (`{ historyId }`), or a history tree element (`{ kind: 'historyToken', entryId }`).
 * Undefined when the argument is none of these or the window no longer holds the token.
 */
export function heldToken(deps: CommandDeps, handles: TokenHandles, arg: unknown): HeldToken | undefined {
  if (typeof arg !== 'object' || arg === null) return undefined;
  const a = arg as Record<string, unknown>;
  if (typeof a.handle === 'string') {
    const token = handles.tokenOf(a.handle);
    if (!token) return undefined;
    return {
      token,
      source: typeof a.source === 'string' && a.source.length <= 200 ? a.source : vscode.l10n.t('Hovered'),
    };
  }
  const historyId =
    typeof a.historyId === 'string'
      ? a.historyId
      : a.kind === 'historyToken' && typeof a.entryId === 'string'
        ? a.entryId
        : undefined;
  if (!historyId) return undefined;
  const entry = deps.tokenHistory.entry(historyId);
  const token = deps.tokenHistory.tokenText(historyId);
  if (!entry || !token) return undefined;
  const environment = deps.environments.get(entry.environmentId);
  return { token, source: describeHistoryEntry(entry, environment), environment, entry };
}

/** "Sent with GET …/vehicles → 401 at 10:42:03", "Generated for MDS staging at 10:42:03". */
export function describeHistoryEntry(entry: TokenHistoryEntry, environment: Environment | undefined): string {
  const at = new Date(entry.iat * 1000).toLocaleTimeString();
  const name = environment?.name ?? entry.environmentId;
  switch (entry.use) {
    case 'request':
      return entry.request
        ? vscode.l10n.t('Sent with GET {0} → {1}, issued {2}', entry.request.url, entry.request.status ?? '?', at)
        : vscode.l10n.t('Sent to {0}, issued {1}', name, at);
    case 'curl':
      return vscode.l10n.t('Copied in a curl command for {0}, issued {1}', name, at);
    case 'copied':
      return vscode.l10n.t('Copied for {0}, issued {1}', name, at);
    default:
      return vscode.l10n.t('Generated for {0}, issued {1}', name, at);
  }
}
