/**
 * Reading a view's NDJSON files into its read table without losing a line, at the speed of DuckDB's typed reader.
 *
 * First every file is read by `read_json` with the model's column types (columnTypes.ts) and `filename`. That reader
 * stops at the first value it cannot type (a string where a number belongs, a line that is not a JSON object) and
 * names the file: that file is left to the line-by-line reader (itemTyping.ts), and the files before and after it are
 * read again, typed. A typed row can still break the model in ways its types do not show (a required value null, a
 * value outside an enum, a null in a list: `typedProblemSql`; an integer of the model that is not whole, which is why
 * the integers are read as DOUBLE and cast back); the files holding such a row go line by line too, so
 * that each item set aside keeps its text and line. A sound harvest is thus read by one typed scan, and one bad line
 * slows only its own file.
 *
 * A row of the typed reader has its file but no line (`_line` null): DuckDB's JSON reader gives no row number, and
 * reading in file order (`preserve_insertion_order`) so that the table's order gives it took 1.6 to 1.9 times the CPU
 * on the 1.87 million telemetry lines of the 7-day benchmark harvest (docs/benchmarks.md). Lines read line by line
 * have theirs.
 *
 * Two rows of one id are copies of one item when their typed values are the same (`_hash`, a hash of every column
 * of the model and the carried fields, the same on both paths); the bytes may differ (key order, spaces, fields the
 * model does not have).
 */
import type { MdsEndpointId } from '../../mds';
import type { ItemColumn } from '../columnTypes';
import { itemColumnsOf, sqlIdentifier, sqlString } from '../columnTypes';
import { integersReadAsDoubles, typedProblemSql, typedReadSql } from './itemTyping';

type Connection = import('@duckdb/node-api').DuckDBConnection;

/** The columns of a read table that are not the item's: where it was read, its typed values' hash, why it was set aside, its text. */
export const READ_COLUMNS = ['_file', '_line', '_hash', '_problem', '_raw'];

/** After this many files that the typed reader could not type, a view's other files are read line by line. */
const MAX_FAILED_FILES = 16;

/** How a view's files were read: how many by the typed reader, and which line by line. */
export interface ReadOutcome {
  typed: number;
  lineByLine: string[];
}

/** The file of `files` that a failed typed read names (DuckDB: `… in file "<path>", in line …`), if the data is at fault. */
export function failedFile(message: string, files: readonly string[]): string | undefined {
  if (!/^(Invalid Input Error|Conversion Error)/.test(message)) return undefined;
  return files.find((f) => message.includes(`in file "${f}"`));
}

/**
 * Creates `table` and reads `files` into it (see the file's comment). `carried`: fields read besides the model's,
 * stored as `_<name>`. `hourOfFile`: the SQL of the hour from `filename`.
 */
export async function readViewTable(
  connection: Connection,
  table: string,
  endpoint: MdsEndpointId,
  files: readonly string[],
  carried: readonly ItemColumn[],
  hourOfFile: string,
): Promise<ReadOutcome> {
  const model = itemColumnsOf(endpoint);
  const columns = [...model, ...carried];
  const hidden = [
    '_hour VARCHAR',
    '_file VARCHAR',
    '_line BIGINT',
    '_hash UBIGINT',
    '_problem VARCHAR',
    '_raw VARCHAR',
  ];
  await connection.run(
    `CREATE TABLE ${table} (${[...model.map((c) => `${sqlIdentifier(c.name)} ${c.type}`), ...hidden, ...carried.map((c) => `${sqlIdentifier(`_${c.name}`)} ${c.type}`)].join(', ')})`,
  );
  const renamed = carried.length
    ? ` EXCLUDE (${carried.map((c) => sqlIdentifier(c.name)).join(', ')}), ${carried.map((c) => `${sqlIdentifier(c.name)} AS ${sqlIdentifier(`_${c.name}`)}`).join(', ')}`
    : '';
  const into = (select: string) =>
    `INSERT INTO ${table} BY NAME SELECT *${renamed}, hash(${columns.map((c) => sqlIdentifier(c.name)).join(', ')}) AS _hash FROM (${select})`;
  const problem = typedProblemSql(endpoint, carried);
  // DuckDB's typed reader reads 6.25 into an integer column as 6, without a word: the model's integers are read as
  // DOUBLE and cast back, and a file where one is not whole (a cost in euros, a battery of 0.62) goes line by line
  // with the others that break the model, where such an item is set aside with its line (itemTyping.ts). 8.0e1 is 80.
  const integers = integersReadAsDoubles(endpoint);
  const typedArgument = `{${columns.map((c) => `${sqlString(c.name)}: ${sqlString(integers.readType.get(c.name) ?? c.type)}`).join(', ')}}`;
  const typed = (batch: readonly string[]) =>
    `SELECT ${columns.map((c) => `${integers.typedOf(c.name)} AS ${sqlIdentifier(c.name)}`).join(', ')}, ${hourOfFile} AS _hour, filename AS _file, CAST(NULL AS BIGINT) AS _line, CASE WHEN ${integers.notWhole} OR ${problem} THEN 'model' END AS _problem, CAST(NULL AS VARCHAR) AS _raw FROM read_json([${batch.map(sqlString).join(', ')}], format = 'newline_delimited', records = true, columns = ${typedArgument}, filename = true)`;

  const lineByLine: string[] = [];
  const queue: string[][] = [[...files]];
  while (queue.length) {
    const batch = queue.shift() as string[];
    if (!batch.length) continue;
    try {
      await connection.run(into(typed(batch)));
    } catch (err) {
      const bad = failedFile(err instanceof Error ? err.message : String(err), batch);
      if (bad === undefined) throw err;
      // The reader goes roughly in file order: the files before the bad one likely had no fault; they are read again
      // in one batch, and the files after it in another.
      lineByLine.push(bad);
      const at = batch.indexOf(bad);
      queue.unshift(batch.slice(0, at), batch.slice(at + 1));
      // A harvest whose files mostly hold such lines (a provider that sends "79%" in every hour) is read line by line
      // at once, rather than by one failing typed read after another.
      if (lineByLine.length >= MAX_FAILED_FILES) lineByLine.push(...queue.splice(0).flat());
    }
  }
  const flagged = (await connection.runAndReadAll(`SELECT DISTINCT _file FROM ${table} WHERE _problem IS NOT NULL`))
    .getRowsJS()
    .map((r) => r[0] as string);
  if (flagged.length) {
    await connection.run(`DELETE FROM ${table} WHERE _file IN (${flagged.map(sqlString).join(', ')})`);
    lineByLine.push(...flagged);
  }
  if (lineByLine.length) {
    // In the order of `files` (for the reader, not for the table: rows are told apart by file and line).
    const slow = files.filter((f) => lineByLine.includes(f));
    await connection.run(into(typedReadSql(endpoint, slow, carried, hourOfFile).select));
  }
  return { typed: files.length - lineByLine.length, lineByLine };
}
