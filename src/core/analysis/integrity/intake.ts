/**
 * What became of every line of the harvest: per view, how many items were read (non-blank lines), kept (rows of the
 * typed view), merged as identical copies of an item (the same id and the same bytes, as a resumed harvest writes
 * them) and set aside as untyped (`untyped_items`); read = kept + merged + set aside. And the lines of each hour file,
 * which the manifest check compares with the manifest's counts.
 */
import { sqlString } from '../columnTypes';

type Connection = import('@duckdb/node-api').DuckDBConnection;

/** The view of the items that could not be typed, as raw JSON with their file and line. */
export const UNTYPED_VIEW = 'untyped_items';

/** One view's counts. */
export interface IntakeCounts {
  read: number;
  kept: number;
  merged: number;
  setAside: number;
}

/** The intake of a session. */
export interface Intake {
  views: Record<string, IntakeCounts>;
  /** Non-blank lines per hour file (absolute path), as read. */
  lines: Map<string, number>;
}

export const emptyIntake = (): Intake => ({ views: {}, lines: new Map() });

/** The table and the view of the untyped items (empty until lines are set aside). */
export function untypedTableSql(): string {
  return `CREATE TABLE _untyped (endpoint VARCHAR, file VARCHAR, line BIGINT, problem VARCHAR, item VARCHAR); CREATE VIEW ${UNTYPED_VIEW} AS SELECT * FROM _untyped`;
}

/** `file` relative to the harvest folder, in SQL. */
function relativeFile(folder: string): string {
  const prefix = folder.endsWith('/') ? folder : `${folder}/`;
  return `CASE WHEN starts_with(_file, ${sqlString(prefix)}) THEN substr(_file, ${prefix.length + 1}) ELSE _file END`;
}

/** Moves the lines of `table` that could not be typed into `_untyped`. */
export function setAsideSql(view: string, table: string, folder: string): string {
  return `INSERT INTO _untyped SELECT ${sqlString(view)}, ${relativeFile(folder)}, _line, _problem, _raw FROM ${table} WHERE _problem IS NOT NULL; DELETE FROM ${table} WHERE _problem IS NOT NULL`;
}

/** Counts the lines read into `table` (per file) and those that could not be typed, before they are set aside. */
export async function intakeOfRead(connection: Connection, intake: Intake, view: string, table: string): Promise<void> {
  const rows = (
    await connection.runAndReadAll(`SELECT _file, count(*) AS n, count(_problem) AS bad FROM ${table} GROUP BY _file`)
  ).getRowsJS();
  let read = 0;
  let setAside = 0;
  for (const [file, n, bad] of rows) {
    intake.lines.set(typeof file === 'string' ? file : '', Number(n));
    read += Number(n);
    setAside += Number(bad);
  }
  intake.views[view] = { read, kept: 0, merged: 0, setAside };
}

/** The intake in words, one line per view that read anything: what `check` prints under its item counts. */
export function intakeLines(views: Record<string, IntakeCounts>): string[] {
  return Object.entries(views)
    .filter(([, c]) => c.read > 0)
    .map(
      ([view, c]) =>
        `  ${view}: ${c.read} read = ${c.kept} kept + ${c.merged} merged as identical copies + ${c.setAside} set aside (${UNTYPED_VIEW})`,
    );
}
