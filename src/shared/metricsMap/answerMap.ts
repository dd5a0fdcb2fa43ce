// What the harvest notebook's map shows of a SQL answer: an answer with a `geography_id` column and a numeric column
// (a metrics or geography cell, such as `SELECT geography_id, count(*) AS trips FROM trips_geographies GROUP BY 1`),
// with the geographies' polygons, is drawn as the Metrics view's map (webview-ui/map/geoMap.ts), shaded by its first
// numeric column; null stays "no data", -1 on a `count` column (the Metrics API's k-suppression) stays suppressed.
// When a geography has several rows (one per interval), the map shows its last and says so. Pure.
import type { SqlAnswerData } from '../sqlAnswer';
import { isNumericType } from '../sqlAnswer';

export interface AnswerMap {
  /** The column the map is shaded by. */
  measure: string;
  /** A count (its name ends in `count` or `.count`): -1 is k-suppressed. */
  count: boolean;
  /** Each geography's value (its last row's). */
  values: Map<string, number | null>;
  /** Every value of the column, for the classes. */
  range: (number | null)[];
  /** Geographies with more than one row. */
  repeated: number;
}

const asNumber = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v)
    ? v
    : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))
      ? Number(v)
      : null;

/** The map of `answer`, or undefined when it has no polygons, no `geography_id` column or no numeric column. */
export function answerMap(answer: SqlAnswerData): AnswerMap | undefined {
  if (!answer.shapes?.length) return undefined;
  const idCol = answer.columns.findIndex((c) => c.name === 'geography_id');
  const valueCol = answer.columns.findIndex((c, i) => i !== idCol && isNumericType(c.type));
  if (idCol < 0 || valueCol < 0) return undefined;
  const values = new Map<string, number | null>();
  const seen = new Map<string, number>();
  const range: (number | null)[] = [];
  for (const row of answer.rows) {
    const id = row[idCol];
    if (typeof id !== 'string') continue;
    const v = asNumber(row[valueCol]);
    values.set(id, v);
    range.push(v);
    seen.set(id, (seen.get(id) ?? 0) + 1);
  }
  const measure = answer.columns[valueCol].name;
  return {
    measure,
    count: /(^|[._])count$/.test(measure),
    values,
    range,
    repeated: [...seen.values()].filter((n) => n > 1).length,
  };
}
