/**
 * DuckDB column types for MDS items, derived from the official MDS 2.0 models (the bundled schemas), never from
 * sampling the data: a field that is null in the first thousand items and a struct later would otherwise be guessed
 * wrong. Combinators (allOf, oneOf, anyOf: the mode-specific parts of trips and events) are merged, so that every
 * field of every mode has a column; a field whose branches disagree on a scalar type, or an object without declared
 * properties, is kept as JSON.
 */
import { bundledMdsSchema } from '../conformance';
import type { MdsEndpointId } from '../mds';

type Schema = Record<string, unknown>;

/** The shape of one schema, merged over its combinators. */
export type Shape =
  | { kind: 'scalar'; type: 'VARCHAR' | 'BIGINT' | 'DOUBLE' | 'BOOLEAN' | 'JSON'; time?: true }
  | { kind: 'struct'; fields: Map<string, Shape> }
  | { kind: 'list'; item: Shape }
  | { kind: 'none' };

const JSON_SHAPE: Shape = { kind: 'scalar', type: 'JSON' };
/** The models' time type: whole milliseconds since 1970, UTC (`data-types/timestamp`). */
const TIMESTAMP_DEF = 'models.data-types.timestamp';
const TIME_SHAPE: Shape = { kind: 'scalar', type: 'BIGINT', time: true };
const NONE: Shape = { kind: 'none' };

/** Nesting deeper than this (a recursive model) is kept as JSON. */
const MAX_DEPTH = 12;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Merges two shapes of one field; scalar disagreements widen (BIGINT with DOUBLE is DOUBLE), others become JSON. */
function merge(a: Shape, b: Shape): Shape {
  if (a.kind === 'none') return b;
  if (b.kind === 'none') return a;
  if (a.kind === 'struct' && b.kind === 'struct') {
    const fields = new Map(a.fields);
    for (const [name, shape] of b.fields) fields.set(name, merge(fields.get(name) ?? NONE, shape));
    return { kind: 'struct', fields };
  }
  if (a.kind === 'list' && b.kind === 'list') return { kind: 'list', item: merge(a.item, b.item) };
  if (a.kind === 'scalar' && b.kind === 'scalar') {
    if (a.type === b.type) return a;
    const numbers = new Set([a.type, b.type]);
    if (numbers.has('BIGINT') && numbers.has('DOUBLE') && numbers.size === 2) return { kind: 'scalar', type: 'DOUBLE' };
  }
  return JSON_SHAPE;
}

function shapeOf(schema: unknown, defs: Schema, depth: number): Shape {
  if (!isSchema(schema)) return NONE;
  if (depth > MAX_DEPTH) return JSON_SHAPE;
  let shape: Shape = NONE;
  if (typeof schema.$ref === 'string') {
    const name = /^#\/\$defs\/(.+)$/.exec(schema.$ref)?.[1];
    shape = merge(
      shape,
      name === undefined ? JSON_SHAPE : name === TIMESTAMP_DEF ? TIME_SHAPE : shapeOf(defs[name], defs, depth + 1),
    );
  }
  for (const combinator of ['allOf', 'oneOf', 'anyOf'] as const) {
    const branches = schema[combinator];
    if (Array.isArray(branches)) for (const branch of branches) shape = merge(shape, shapeOf(branch, defs, depth + 1));
  }
  const types = (Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type]).filter(
    (t) => t !== 'null',
  );
  const properties = isSchema(schema.properties) ? schema.properties : undefined;
  if (properties && Object.keys(properties).length) {
    const fields = new Map<string, Shape>();
    for (const [name, property] of Object.entries(properties)) fields.set(name, shapeOf(property, defs, depth + 1));
    shape = merge(shape, { kind: 'struct', fields });
  }
  if (schema.items !== undefined || types.includes('array'))
    shape = merge(shape, { kind: 'list', item: shapeOf(schema.items, defs, depth + 1) });
  for (const type of types) {
    if (type === 'string') shape = merge(shape, { kind: 'scalar', type: 'VARCHAR' });
    else if (type === 'integer') shape = merge(shape, { kind: 'scalar', type: 'BIGINT' });
    // MDS timestamps are "number" with multipleOf 1: whole milliseconds.
    else if (type === 'number')
      shape = merge(shape, { kind: 'scalar', type: schema.multipleOf === 1 ? 'BIGINT' : 'DOUBLE' });
    else if (type === 'boolean') shape = merge(shape, { kind: 'scalar', type: 'BOOLEAN' });
  }
  // An object whose properties no branch declares (a free-form map): kept whole, as JSON.
  if (shape.kind === 'none' && types.includes('object')) shape = JSON_SHAPE;
  if (shape.kind === 'none' && (Array.isArray(schema.enum) || schema.const !== undefined)) {
    const values = Array.isArray(schema.enum) ? schema.enum : [schema.const];
    shape = values.every((v) => typeof v === 'string' || v === null) ? { kind: 'scalar', type: 'VARCHAR' } : JSON_SHAPE;
  }
  return shape;
}

/** A double-quoted SQL identifier. */
export function sqlIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** A single-quoted SQL string literal. */
export function sqlString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

export function typeText(shape: Shape): string {
  switch (shape.kind) {
    case 'none':
      return 'JSON';
    case 'scalar':
      return shape.type;
    case 'list':
      return `${typeText(shape.item)}[]`;
    case 'struct':
      return `STRUCT(${[...shape.fields].map(([name, field]) => `${sqlIdentifier(name)} ${typeText(field)}`).join(', ')})`;
  }
}

/** One column of an item: its name and DuckDB type. */
export interface ItemColumn {
  name: string;
  type: string;
}

/** The shape of each field of one item of `endpoint`'s payload array, in the order the model declares them. */
export function itemShapesOf(endpoint: MdsEndpointId): [string, Shape][] {
  const document = bundledMdsSchema(endpoint);
  const defs = isSchema(document.$defs) ? document.$defs : {};
  const shape = shapeOf(defs.item, defs, 0);
  if (shape.kind !== 'struct') throw new Error(`The bundled schema of ${endpoint} has no object items`);
  return [...shape.fields];
}

/** The columns of one item of `endpoint`'s payload array, in the order the model declares them. */
export function itemColumnsOf(endpoint: MdsEndpointId): ItemColumn[] {
  return itemShapesOf(endpoint).map(([name, field]) => ({ name, type: typeText(field) }));
}

/**
 * `expr` (of `shape`) with every MDS time in it turned into a Parquet timestamp (`write`: BIGINT milliseconds to
 * TIMESTAMPTZ, which Parquet stores as TIMESTAMP(isAdjustedToUTC)) or back (`read`); undefined when it holds no time.
 */
function timesConverted(shape: Shape, expr: string, direction: 'write' | 'read', depth: number): string | undefined {
  switch (shape.kind) {
    case 'scalar':
      if (!shape.time) return undefined;
      return direction === 'write' ? `make_timestamptz(${expr} * 1000)` : `epoch_ms(${expr})`;
    case 'list': {
      const item = `_x${depth}`;
      const inner = timesConverted(shape.item, item, direction, depth + 1);
      return inner && `list_transform(${expr}, ${item} -> ${inner})`;
    }
    case 'struct': {
      const fields = [...shape.fields].map(([name, field]) => {
        const value = `(${expr}).${sqlIdentifier(name)}`;
        return { name, value, converted: timesConverted(field, value, direction, depth + 1) };
      });
      if (!fields.some((f) => f.converted)) return undefined;
      return `CASE WHEN (${expr}) IS NULL THEN NULL ELSE struct_pack(${fields.map((f) => `${sqlIdentifier(f.name)} := ${f.converted ?? f.value}`).join(', ')}) END`;
    }
    default:
      return undefined;
  }
}

/**
 * The select list of `endpoint`'s items as Parquet holds them (`write`: MDS times as timestamps, so that every
 * reader sees instants in UTC, not bare integers) or as the views have them (`read`: milliseconds again;
 * `as-written`: as they are, for files that hold milliseconds), from columns of the same names; in the model's order.
 */
export function parquetColumnsSql(endpoint: MdsEndpointId, direction: 'write' | 'read' | 'as-written'): string {
  return itemShapesOf(endpoint)
    .map(([name, shape]) => {
      const column = sqlIdentifier(name);
      const converted = direction === 'as-written' ? undefined : timesConverted(shape, column, direction, 0);
      return converted ? `${converted} AS ${column}` : column;
    })
    .join(', ');
}
