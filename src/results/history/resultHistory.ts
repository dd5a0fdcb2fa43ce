// The results of this session in one panel, newest first, with bounded memory: the last few keep everything (rows,
// pages, tokens held host-side) and can be shown again and compared; older ones keep only their summary entry, and
// the oldest summaries go too. Nothing here outlives the window: after a reload the panel has its persisted summary only.
import type { HistoryEntryView } from '../../shared/historyViews';
import { HISTORY_KEPT_IN_FULL, HISTORY_MAX_ENTRIES } from '../../shared/historyViews';

interface Entry<T> {
  view: HistoryEntryView;
  /** The whole result, while it is one of the last few. */
  held?: T;
  /** Sends its request again (a new result): small, so kept after the result is let go of. */
  again?: () => Promise<unknown>;
}

/** A bounded history of results `T`, each listed by its `HistoryEntryView`. */
export class ResultHistory<T> {
  private entries: Entry<T>[] = [];

  constructor(
    private readonly keptInFull = HISTORY_KEPT_IN_FULL,
    private readonly maxEntries = HISTORY_MAX_ENTRIES,
  ) {
    if (keptInFull < 2 || maxEntries < keptInFull)
      throw new RangeError('A history keeps at least two results in full, and lists at least those.');
  }

  /**
   * Adds a result as the newest entry (again at the top if its id is listed already). Returns the results that
   * no longer are kept in full, so that the caller can let go of what they hold.
   */
  add(view: HistoryEntryView, held: T, again?: () => Promise<unknown>): T[] {
    const released: T[] = [];
    const existing = this.entries.findIndex((e) => e.view.id === view.id);
    if (existing >= 0) this.entries.splice(existing, 1);
    this.entries.unshift({
      view: { ...view, kept: true, canRunAgain: again !== undefined },
      held,
      ...(again ? { again } : {}),
    });
    this.entries.forEach((entry, i) => {
      if (i >= this.keptInFull && entry.held !== undefined) {
        released.push(entry.held);
        entry.held = undefined;
        entry.view = { ...entry.view, kept: false };
      }
    });
    for (const dropped of this.entries.splice(this.maxEntries))
      if (dropped.held !== undefined) released.push(dropped.held);
    return released;
  }

  /** Updates the entry of `id` (its summary line after more pages arrived). */
  update(view: HistoryEntryView): void {
    const entry = this.entries.find((e) => e.view.id === view.id);
    if (entry) entry.view = { ...view, kept: entry.held !== undefined, canRunAgain: entry.again !== undefined };
  }

  /** What sends the request of `id` again, kept or not; undefined when it cannot be sent again. */
  again(id: string): (() => Promise<unknown>) | undefined {
    return this.entries.find((e) => e.view.id === id)?.again;
  }

  /** The whole result of `id`, while it is kept in full. */
  held(id: string): T | undefined {
    return this.entries.find((e) => e.view.id === id)?.held;
  }

  /** The entry of `id`, kept or not. */
  entry(id: string): HistoryEntryView | undefined {
    return this.entries.find((e) => e.view.id === id)?.view;
  }

  /** The entries, newest first. */
  list(): HistoryEntryView[] {
    return this.entries.map((e) => e.view);
  }

  /** Forgets everything; returns what was held. */
  clear(): T[] {
    const held = this.entries.flatMap((e) => (e.held === undefined ? [] : [e.held]));
    this.entries = [];
    return held;
  }
}
