/**
 * Whether status-vs-events can compare the /vehicles/status snapshot with the harvest's events at all: not when the
 * snapshot was taken long after the harvest ends (the events between are not in the harvest), nor when no status has
 * its last_event inside the harvest's window. It then says it could not compare, and why: never "no finding".
 */
import * as l10n from '@vscode/l10n';
import { formatDuration } from '../../base';

/** What the rule needs to know: a read-only query over the views. */
interface Queryable {
  query(sql: string): Promise<{ rows: Record<string, unknown>[] }>;
}

/** Why status-vs-events cannot compare, or undefined when it can. `gapMinutes`: the threshold snapshotGapMinutes. */
export async function statusNotComparable(
  session: Queryable,
  window: { start: number; end: number },
  lastUpdated: number | undefined,
  gapMinutes: number,
): Promise<string | undefined> {
  const iso = (ms: number) => new Date(ms).toISOString();
  if (lastUpdated !== undefined && lastUpdated - window.end > gapMinutes * 60_000) {
    return l10n.t(
      'could not compare: the snapshot was taken at {0}, {1} after the harvest ends ({2}); the events between are not in the harvest, so neither a status nor a missing vehicle can be checked against them. Take the snapshot at the end of the harvest (harvest --snapshot with --to the last finished hour), or raise the threshold snapshotGapMinutes ({3})',
      iso(lastUpdated),
      formatDuration((lastUpdated - window.end) / 1000),
      iso(window.end),
      gapMinutes,
    );
  }
  const answer = await session.query(
    `SELECT count(*) AS n, count(*) FILTER (last_event.timestamp >= ${window.start} AND last_event.timestamp < ${window.end}) AS inside FROM vehicles_status`,
  );
  const n = Number(answer.rows[0]?.n ?? 0);
  const inside = Number(answer.rows[0]?.inside ?? 0);
  if (n > 0 && inside === 0) {
    return l10n.t(
      'could not compare: none of the {0} statuses has its last_event inside the harvest ({1} to {2}), so none can be checked against the events',
      n,
      iso(window.start),
      iso(window.end),
    );
  }
  return undefined;
}
