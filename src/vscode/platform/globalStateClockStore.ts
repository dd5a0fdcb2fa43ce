import type * as vscode from 'vscode';
import type { FileClockStore } from '../../core/clock';

/** Where versions before the shared clock kept the marks of this VS Code profile. */
const LEGACY_KEY = 'mobilityApi.issueClock';

/**
 * Carries the issue-clock marks that earlier versions kept in `globalState` into the shared file
 * store (the larger mark wins, so no earlier time is ever handed out), then removes them from
 * `globalState`, which is no longer used for the clock. Removes nothing when the file store
 * cannot be written: the marks then stay for the next try. Returns how many marks were carried.
 */
export async function migrateGlobalStateClock(state: vscode.Memento, store: FileClockStore): Promise<number> {
  const stored = state.get<Record<string, unknown>>(LEGACY_KEY);
  if (stored === undefined) return 0;
  const marks: Record<string, number> = Object.create(null) as Record<string, number>;
  for (const [k, v] of Object.entries(stored ?? {})) if (typeof v === 'number' && Number.isFinite(v)) marks[k] = v;
  await store.raiseMarks(marks);
  await state.update(LEGACY_KEY, undefined);
  return Object.keys(marks).length;
}
