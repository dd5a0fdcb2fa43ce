import type * as vscode from 'vscode';
import type { ClockDecision, ClockStore } from '../core/issueClock';

const KEY = 'mobilityApi.issueClock';

/**
 * The per-key issue clock's high-water marks in `globalState`: a number per key id, never a key.
 * Decisions are made on an in-memory copy (one extension host serves a window), then persisted.
 */
export class GlobalStateClockStore implements ClockStore {
  constructor(private readonly state: vscode.Memento) {}

  async update(keyId: string, decide: (last: number | undefined) => ClockDecision): Promise<ClockDecision> {
    const marks = this.read();
    const decision = decide(Object.hasOwn(marks, keyId) ? marks[keyId] : undefined);
    if ('issue' in decision) {
      marks[keyId] = decision.issue;
      await this.state.update(KEY, marks);
    }
    return decision;
  }

  /** Removes a key's mark, when its credential is removed. */
  async forget(keyId: string): Promise<void> {
    const marks = this.read();
    if (Object.hasOwn(marks, keyId)) {
      delete marks[keyId];
      await this.state.update(KEY, marks);
    }
  }

  private read(): Record<string, number> {
    const stored = this.state.get<Record<string, unknown>>(KEY, {});
    const marks: Record<string, number> = {};
    for (const [k, v] of Object.entries(stored ?? {})) if (typeof v === 'number' && Number.isFinite(v)) marks[k] = v;
    return marks;
  }
}
