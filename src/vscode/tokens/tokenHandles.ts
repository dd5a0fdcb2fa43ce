import { randomUUID } from 'node:crypto';

/** How many tokens a window holds for hover links before the oldest is forgotten. */
export const MAX_TOKEN_HANDLES = 64;

/**
 * Short-lived ids for token texts, so that a hover's "open decoded view" link carries an id instead
 * of the token: the markdown (which VS Code may keep, render or copy) never holds a bearer token.
 * In memory only and bounded; the same text gets the same id while it is held.
 */
export class TokenHandles {
  private readonly byHandle = new Map<string, string>();
  private readonly byText = new Map<string, string>();

  constructor(private readonly max = MAX_TOKEN_HANDLES) {}

  /** The id of `token`, made when first seen (and refreshed, so that a token in use is not dropped). */
  handleFor(token: string): string {
    const known = this.byText.get(token);
    if (known) {
      this.byHandle.delete(known);
      this.byHandle.set(known, token);
      return known;
    }
    const handle = randomUUID();
    this.byHandle.set(handle, token);
    this.byText.set(token, handle);
    while (this.byHandle.size > this.max) {
      const oldest = this.byHandle.keys().next().value as string;
      const text = this.byHandle.get(oldest);
      this.byHandle.delete(oldest);
      if (text !== undefined) this.byText.delete(text);
    }
    return handle;
  }

  /** The token of an id, while it is held. */
  tokenOf(handle: unknown): string | undefined {
    return typeof handle === 'string' ? this.byHandle.get(handle) : undefined;
  }

  get size(): number {
    return this.byHandle.size;
  }

  clear(): void {
    this.byHandle.clear();
    this.byText.clear();
  }

  dispose(): void {
    this.clear();
  }
}
