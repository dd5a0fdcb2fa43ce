// How an MDS item is read and tabled, whatever its resource (resourceReaders.ts holds the resources): field readers
// over a path into the item, an item's reading by its table of fields, and a resource's table filled column by column
// straight from the items. A reader never throws: a field of the wrong type is '' or NaN.
import { isRecord } from '../../shared/isRecord';
import type {
  CategoryColumn,
  DataColumn,
  DataTableView,
  NumberColumn,
  PositionColumn,
  TableResource,
  TextColumn,
  TimeColumn,
} from '../../shared/dataTable';
import { readList, readNumber, readPosition, readText, readTime, readTypeCounts } from './fieldReaders';
import { CodeBook } from './vehicleReader';

export type Item = Record<string, unknown>;
/** Reads one field of a reading from an item (any JSON value: a reader never throws). */
export type FieldReader<T> = (item: Item) => T;
/** Where each field of a reading `R` comes from. */
export type Fields<R> = { readonly [K in keyof R]: FieldReader<R[K]> };

/** A getter of the value at `path` inside an item, undefined where a step is not an object; made once per field. */
function at(path: readonly string[]): (item: Item) => unknown {
  const [first, ...rest] = path;
  if (!rest.length) return (item) => item[first];
  return (item) => {
    let value: unknown = item[first];
    for (const key of rest) value = isRecord(value) ? value[key] : undefined;
    return value;
  };
}

/** A field reader kind: `read` (from fieldReaders.ts) over the value at a path into the item. */
const over =
  <T>(read: (value: unknown) => T) =>
  (...path: string[]): FieldReader<T> => {
    const get = at(path);
    return (item) => read(get(item));
  };

/** The field readers, each over a path into the item (`'location', 'speed'`). */
export const field = {
  text: over(readText),
  list: over((value) => readList(value)),
  number: over(readNumber),
  time: over(readTime),
  typeCounts: over(readTypeCounts),
  /** Latitude and longitude of one position: the longitude reuses the position the latitude just read of the same item. */
  position: (...path: string[]): { lat: FieldReader<number>; lng: FieldReader<number> } => {
    const get = at(path);
    let last: { item: Item; lat: number; lng: number } | undefined;
    const read = (item: Item) => (last?.item === item ? last : (last = { item, ...readPosition(get(item)) }));
    return { lat: (item) => read(item).lat, lng: (item) => read(item).lng };
  },
};

/** The reading of one item by its table of fields. */
export function readItem<R>(fields: Fields<R>, item: unknown): R {
  const record: Item = isRecord(item) ? item : {};
  const reading = {} as R;
  for (const key of Object.keys(fields) as (keyof R)[]) reading[key] = fields[key](record);
  return reading;
}

/** Keys of `R` whose reading is a string or a number: which a text (category) or number (time) column shows. */
type KeysOf<R, T> = { [K in keyof R]: R[K] extends T ? K : never }[keyof R];

/** One column of a resource's table: its id, label and kind, and the reading (two for a position) it shows. */
export type ColumnSpec<R> = { id: string; label: string } & (
  | { type: 'text'; from: KeysOf<R, string>; hidden?: boolean }
  | { type: 'category'; from: KeysOf<R, string>; states?: boolean }
  | { type: 'number'; from: KeysOf<R, number>; unit?: string; digits?: number }
  | { type: 'time'; from: KeysOf<R, number> }
  | { type: 'position'; lat: KeysOf<R, number>; lng: KeysOf<R, number> }
);

/** A resource's table: how an item is read and which columns show the reading, in order. */
export interface TableSpec<R> {
  resource: TableResource;
  noun: [string, string];
  groupBy?: string;
  fields: Fields<R>;
  /** A function: labels are translated when used, not when the module loads. */
  columns: () => ColumnSpec<R>[];
}

/** A column to fill, and how to fill row `i` of it from an item. */
interface Filler {
  column: DataColumn;
  set: (i: number, item: Item) => void;
}

/** Each column reads its own fields straight from the item: no reading object per row (tables hold 100,000s of rows). */
function fillerOf<R>(spec: ColumnSpec<R>, fields: Fields<R>, n: number): Filler {
  const { id, label } = spec;
  switch (spec.type) {
    case 'text': {
      const column: TextColumn = { id, label, type: 'text', values: new Array<string>(n).fill('') };
      if (spec.hidden) column.hidden = true;
      const read = fields[spec.from] as FieldReader<string>;
      return { column, set: (i, item) => (column.values[i] = read(item)) };
    }
    case 'category': {
      const book = new CodeBook();
      const column: CategoryColumn = { id, label, type: 'category', codes: new Uint16Array(n), names: book.names };
      if (spec.states) column.states = true;
      const read = fields[spec.from] as FieldReader<string>;
      return { column, set: (i, item) => (column.codes[i] = book.code(read(item))) };
    }
    case 'number': {
      const column = number(id, label, n, spec.unit, spec.digits);
      const read = fields[spec.from] as FieldReader<number>;
      return { column, set: (i, item) => (column.values[i] = read(item)) };
    }
    case 'time': {
      const column: TimeColumn = { id, label, type: 'time', values: new Float64Array(n) };
      const read = fields[spec.from] as FieldReader<number>;
      return { column, set: (i, item) => (column.values[i] = read(item)) };
    }
    case 'position': {
      const column: PositionColumn = {
        id,
        label,
        type: 'position',
        lat: new Float64Array(n),
        lng: new Float64Array(n),
      };
      const lat = fields[spec.lat] as FieldReader<number>;
      const lng = fields[spec.lng] as FieldReader<number>;
      return {
        column,
        set: (i, item) => {
          column.lat[i] = lat(item);
          column.lng[i] = lng(item);
        },
      };
    }
  }
}

/** The table of `items` by `spec`: each column filled by the field readers of the reading it shows. */
export function tableOf<R>(spec: TableSpec<R>, items: readonly unknown[]): DataTableView {
  const n = items.length;
  const fillers = spec.columns().map((c) => fillerOf(c, spec.fields, n));
  const empty: Item = {};
  const records = items.map((item) => (isRecord(item) ? item : empty));
  // Column by column: each loop calls one reader, which the engine can inline; row by row it could not.
  for (const f of fillers) for (let i = 0; i < n; i++) f.set(i, records[i]);
  const columns = fillers.map((f) => f.column);
  const noun: [string, string] = [...spec.noun];
  return spec.groupBy
    ? { resource: spec.resource, noun, count: n, groupBy: spec.groupBy, columns }
    : { resource: spec.resource, noun, count: n, columns };
}

export function number(id: string, label: string, n: number, unit?: string, digits?: number): NumberColumn {
  const column: NumberColumn = { id, label, type: 'number', values: new Float64Array(n) };
  if (unit) column.unit = unit;
  if (digits !== undefined) column.digits = digits;
  return column;
}
