import { randomUUID } from 'node:crypto';
import type { IssuedToken } from '../../core/auth';

/** How a token of this session was used. */
export type TokenUse = 'generated' | 'copied' | 'request' | 'curl';

/** One token issued this session, described without its text. */
export interface TokenHistoryEntry {
  /** A session-local id (not the jti): tree items and commands refer to it. */
  id: string;
  environmentId: string;
  jti: string;
  kid: string;
  iat: number;
  exp: number;
  use: TokenUse;
  /** The request that carried the token, for `request` tokens: URL and answer status. */
  request?: { url: string; status?: number; statusText?: string };
  /** When it was recorded here, ms since the epoch. */
  recordedAt: number;
}

/** Something that stops a listener. */
export interface HistorySubscription {
  dispose(): void;
}

/** Most entries kept per environment; a 1000-page listing would otherwise grow the tree without bound. */
export const MAX_HISTORY_PER_ENVIRONMENT = 50;

/**
 * The tokens issued in this window, per environment, newest first. Only what a token says about
 * itself (jti, kid, iat, exp) and how it was used is described; the token text is held in memory only,
 * for "open the decoded view" and "copy", and nothing here is ever written anywhere, so a reload
 * clears it. No vscode import: the tree and the commands adapt it.
 */
export class TokenHistory {
  private readonly byEnvironment = new Map<string, TokenHistoryEntry[]>();
  private readonly byId = new Map<string, TokenHistoryEntry>();
  private readonly texts = new Map<string, string>();
  private readonly listeners = new Set<() => void>();

  constructor(private readonly options: { maxPerEnvironment?: number; now?: () => number } = {}) {}

  /** Records an issued token; the entry it made. */
  record(
    issued: IssuedToken,
    use: TokenUse,
    request?: { url: string; status?: number; statusText?: string },
  ): TokenHistoryEntry {
    const entry: TokenHistoryEntry = {
      id: randomUUID(),
      environmentId: issued.environmentId,
      jti: issued.claims.jti,
      kid: issued.header.kid,
      iat: issued.claims.iat,
      exp: issued.claims.exp,
      use,
      recordedAt: (this.options.now ?? Date.now)(),
    };
    if (request) entry.request = { ...request };
    const list = this.byEnvironment.get(entry.environmentId) ?? [];
    list.unshift(entry);
    const max = this.options.maxPerEnvironment ?? MAX_HISTORY_PER_ENVIRONMENT;
    for (const dropped of list.splice(max)) {
      this.byId.delete(dropped.id);
      this.texts.delete(dropped.id);
    }
    this.byEnvironment.set(entry.environmentId, list);
    this.byId.set(entry.id, entry);
    this.texts.set(entry.id, issued.token);
    this.fire();
    return entry;
  }

  /** The entries of one environment, newest first. */
  entries(environmentId: string): readonly TokenHistoryEntry[] {
    return this.byEnvironment.get(environmentId) ?? [];
  }

  /** Every entry, newest first. */
  all(): TokenHistoryEntry[] {
    return [...this.byId.values()].sort((a, b) => b.recordedAt - a.recordedAt);
  }

  entry(id: string): TokenHistoryEntry | undefined {
    return this.byId.get(id);
  }

  /** The token text of an entry, while this window lives. A secret: for the decoded view and an explicit copy only. */
  tokenText(id: string): string | undefined {
    return this.texts.get(id);
  }

  get size(): number {
    return this.byId.size;
  }

  onDidChange(listener: () => void): HistorySubscription {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  clear(): void {
    this.byEnvironment.clear();
    this.byId.clear();
    this.texts.clear();
    this.fire();
  }

  dispose(): void {
    this.listeners.clear();
    this.byEnvironment.clear();
    this.byId.clear();
    this.texts.clear();
  }

  private fire(): void {
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch {
        // A failing listener (a disposed tree) must not stop a request from being recorded.
      }
    }
  }
}
