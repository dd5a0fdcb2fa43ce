// The histories of results panels that are not open. A result shown without bringing its panel to the front (a
// Testing-view run's answers, an agent's request) may find no panel open for its environment. Opening one would not do:
// VS Code puts every new panel in front of its group, so it would cover the request file for a moment. The result
// waits here instead, in the same bounded history a panel keeps (the last few in full), and the panel takes that
// history over, in order, when it opens.
import type { HistoryEntryView } from '../../shared/historyViews';
import { ResultHistory } from './resultHistory';

/** The histories of panels not open yet, by panel key. */
export class WaitingHistories<T> {
  /** Each a history as a panel keeps it (ResultHistory's bounds). */
  private readonly byKey = new Map<string, ResultHistory<T>>();

  /**
   * Adds `held` as the newest entry of the history waiting for the panel `key`. Returns the results that no longer are
   * kept in full, as `ResultHistory.add` does.
   */
  hold(key: string, view: HistoryEntryView, held: T, again?: () => Promise<unknown>): T[] {
    let history = this.byKey.get(key);
    if (!history) {
      history = new ResultHistory<T>();
      this.byKey.set(key, history);
    }
    return history.add(view, held, again);
  }

  /** The history waiting for the panel `key`, to read (undefined when nothing waits). */
  of(key: string): ResultHistory<T> | undefined {
    return this.byKey.get(key);
  }

  /** The newest result waiting for the panel `key` (kept in full: the newest always is). */
  newest(key: string): T | undefined {
    const history = this.byKey.get(key);
    const id = history?.list()[0]?.id;
    return id === undefined ? undefined : history?.held(id);
  }

  /** Hands the history waiting for `key` to the panel that opens now: from then on it is that panel's. */
  take(key: string): ResultHistory<T> | undefined {
    const history = this.byKey.get(key);
    this.byKey.delete(key);
    return history;
  }

  /** Forgets every waiting history; returns what they held. */
  clear(): T[] {
    const held = [...this.byKey.values()].flatMap((h) => h.clear());
    this.byKey.clear();
    return held;
  }
}
