/**
 * Reading NDJSON line by line so that no item is lost, for the files DuckDB's typed reader cannot type or that hold a
 * row the model refuses (typedRead.ts; `typedProblemSql` is that check over typed rows): each non-blank line with its
 * file and line number, typed by the MDS 2.0 model (columnTypes.ts) and checked against it, and the problems of a line that cannot
 * be typed written out (a string where a number belongs, a required field missing or null, a value outside the
 * model's enum, a line that is not a JSON object). Such a line keeps its raw JSON and is set aside (`untyped_items`);
 * every other line becomes a row of the typed view. The checks are derived from the bundled schema, never sampled.
 */
import { bundledMdsSchema } from '../../conformance';
import type { MdsEndpointId } from '../../mds';
import type { ItemColumn, Shape } from '../columnTypes';
import { itemShapesOf, sqlIdentifier, sqlString, typeText } from '../columnTypes';

type Schema = Record<string, unknown>;
const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What the model asks of a field beyond its type: required sub-fields, allowed values. */
interface Constraint {
  required: Set<string>;
  enumValues?: string[];
  itemEnum?: string[];
  /** The model allows null (`type` with "null", or a `oneOf`/`anyOf` branch of type null): required means present, which a null does not break. */
  nullable?: boolean;
  /** The model this schema names (`$ref`), e.g. `models.data-types.gps`: what a required object must be. */
  model?: string;
  /** An `anyOf` whose branches each require one field (an event's `location`, or `event_geographies`): one of them must be there. */
  oneRequired?: { field: string; title?: string }[];
  fields: Map<string, Constraint>;
}

/** The model's constraints of a schema, over `$ref` and `allOf` (the branches of `oneOf`/`anyOf` differ by mode and are left to conformance). */
function constraintOf(schema: unknown, defs: Schema, depth = 0): Constraint {
  const out: Constraint = { required: new Set(), fields: new Map() };
  if (!isSchema(schema) || depth > 8) return out;
  const parts: Schema[] = [schema];
  if (typeof schema.$ref === 'string') {
    const name = /^#\/\$defs\/(.+)$/.exec(schema.$ref)?.[1];
    const target = name === undefined ? undefined : defs[name];
    if (isSchema(target)) parts.push(target);
    out.model = name;
  }
  if (Array.isArray(schema.allOf)) parts.push(...schema.allOf.filter(isSchema));
  for (const part of parts.slice(1)) {
    const inner = constraintOf(part, defs, depth + 1);
    inner.required.forEach((r) => out.required.add(r));
    out.enumValues ??= inner.enumValues;
    out.itemEnum ??= inner.itemEnum;
    out.oneRequired ??= inner.oneRequired;
    if (inner.nullable) out.nullable = true;
    for (const [k, v] of inner.fields) out.fields.set(k, v);
  }
  const types: unknown[] = Array.isArray(schema.type) ? (schema.type as unknown[]) : [schema.type];
  const branches: unknown[] = [
    ...(Array.isArray(schema.oneOf) ? (schema.oneOf as unknown[]) : []),
    ...(Array.isArray(schema.anyOf) ? (schema.anyOf as unknown[]) : []),
  ];
  if (types.includes('null') || branches.some((b) => isSchema(b) && b.type === 'null')) out.nullable = true;
  const anyOf = Array.isArray(schema.anyOf) ? schema.anyOf.filter(isSchema) : [];
  if (
    anyOf.length > 1 &&
    anyOf.every((b) => Array.isArray(b.required) && b.required.length === 1 && typeof b.required[0] === 'string')
  ) {
    out.oneRequired = anyOf.map((b) => ({
      field: (b.required as string[])[0],
      title: typeof b.title === 'string' ? b.title : undefined,
    }));
  }
  if (Array.isArray(schema.required)) schema.required.forEach((r) => typeof r === 'string' && out.required.add(r));
  if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === 'string')) out.enumValues = schema.enum;
  if (schema.items !== undefined) {
    const items = constraintOf(schema.items, defs, depth + 1);
    if (items.enumValues) out.itemEnum = items.enumValues;
  }
  if (isSchema(schema.properties)) {
    for (const [k, v] of Object.entries(schema.properties)) {
      const inner = constraintOf(v, defs, depth + 1);
      const known = out.fields.get(k);
      if (known) {
        inner.required.forEach((r) => known.required.add(r));
        known.enumValues ??= inner.enumValues;
        known.itemEnum ??= inner.itemEnum;
        known.model ??= inner.model;
        known.oneRequired ??= inner.oneRequired;
        for (const [f, c] of inner.fields) known.fields.set(f, c);
      } else out.fields.set(k, inner);
    }
  }
  return out;
}

function itemConstraint(endpoint: MdsEndpointId): Constraint {
  const document = bundledMdsSchema(endpoint);
  return constraintOf(document.$defs && (document.$defs as Schema).item, (document.$defs ?? {}) as Schema);
}

/** The skeleton of a struct: its fields' raw JSON, for telling a value the model's type cannot hold from an absent one. */
const skeletonOf = (fields: Map<string, Shape>) =>
  sqlString(JSON.stringify(Object.fromEntries([...fields.keys()].map((k) => [k, 'JSON']))));

/** One problem: a SQL condition, and the words (a SQL expression) that say it. */
interface Check {
  when: string;
  says: string;
}

/** Nested skeletons to compute, one layer per depth: column name, expression. */
type Layers = { name: string; expr: string }[][];

function checksOf(
  name: string,
  shape: Shape,
  c: Constraint | undefined,
  typed: string,
  raw: string,
  depth: number,
  layers: Layers,
  checks: Check[],
): void {
  const label = sqlString(name);
  if (shape.kind === 'scalar' && shape.type !== 'VARCHAR' && shape.type !== 'JSON') {
    const kind =
      shape.type === 'BOOLEAN'
        ? 'true or false'
        : shape.time
          ? 'a time in milliseconds'
          : shape.type === 'BIGINT'
            ? 'a whole number'
            : 'a number';
    checks.push({
      when: `${raw} IS NOT NULL AND ${typed} IS NULL`,
      says: `${label} || ' is ' || left(${raw}, 40) || ', not ${kind}'`,
    });
  }
  if (shape.kind === 'scalar' && shape.type === 'BIGINT') {
    // DuckDB reads 6.25 into a BIGINT as 6, without a word: a fraction where the model has an integer sets the item aside.
    checks.push({
      when: `json_type(${raw}) = 'DOUBLE' AND TRY_CAST(${raw} AS DOUBLE) <> trunc(TRY_CAST(${raw} AS DOUBLE))`,
      says: `${label} || ' is ' || left(${raw}, 40) || ', not ${shape.time ? 'whole milliseconds' : 'a whole number'}'`,
    });
  }
  if (shape.kind === 'scalar' && shape.type === 'VARCHAR' && c?.enumValues) {
    checks.push({
      when: `${typed} IS NOT NULL AND NOT list_contains(${listOf(c.enumValues)}, ${typed})`,
      says: `${label} || ' is ' || left(${typed}, 40) || ', not a value of the MDS 2.0 model'`,
    });
  }
  if (shape.kind === 'list') {
    checks.push({
      when: `${raw} IS NOT NULL AND (json_type(${raw}) <> 'ARRAY' OR ${typed} IS NULL OR len(${typed}) <> json_array_length(${raw}) OR list_count(${typed}) <> len(${typed}))`,
      says: `${label} || ' is ' || left(${raw}, 60) || ', not a list of ${typeText(shape.item).replace(/'/g, "''").slice(0, 40)}'`,
    });
    if (c?.itemEnum)
      checks.push({
        when: `len(list_filter(${typed}, x -> NOT list_contains(${listOf(c.itemEnum)}, x))) > 0`,
        says: `${label} || ' holds ' || list_filter(${typed}, x -> NOT list_contains(${listOf(c.itemEnum)}, x))::VARCHAR || ', not values of the MDS 2.0 model'`,
      });
  }
  if (shape.kind === 'struct') {
    checks.push({
      when: `${raw} IS NOT NULL AND json_type(${raw}) <> 'OBJECT'`,
      says: `${label} || ' is ' || left(${raw}, 40) || ', not an object'`,
    });
    const column = `_k${depth}_${layers.flat().length}`;
    (layers[depth] ??= []).push({
      name: column,
      expr: `CASE WHEN json_type(${raw}) = 'OBJECT' THEN json_transform(${raw}, ${skeletonOf(shape.fields)}) END`,
    });
    const present = `json_type(${raw}) = 'OBJECT'`;
    for (const [field, inner] of shape.fields) {
      checksOf(
        `${name}.${field}`,
        inner,
        c?.fields.get(field),
        `${typed}.${sqlIdentifier(field)}`,
        `${column}.${sqlIdentifier(field)}`,
        depth + 1,
        layers,
        checks,
      );
    }
    requiredChecks(shape.fields, c, `${present} AND `, (f) => `${column}.${sqlIdentifier(f)}`, raw, `${name}.`, checks);
  }
}

/** What a required object of the model is, in words (the `$ref` of the field in the MDS 2.0 schemas). */
const MODEL_WORDS: Record<string, string> = {
  'models.data-types.gps': 'a GPS point',
  'models.event': 'an event',
  'models.telemetry': 'a telemetry point',
};
const modelWords = (c: Constraint | undefined) => MODEL_WORDS[c?.model ?? ''] ?? 'an object';

/** Whether a field of a typed row's raw JSON is absent (null or missing; for a list, also empty). */
const absent = (shape: Shape, value: string) =>
  shape.kind === 'list'
    ? `(${value} IS NULL OR (json_type(${value}) = 'ARRAY' AND json_array_length(${value}) = 0))`
    : `${value} IS NULL`;

/**
 * The checks of an object's required fields: `when` the condition that it is an object (with " AND ", or empty at the
 * item's level), `value(field)` a field's raw JSON (NULL when null or missing), `text` the object's JSON, `prefix` its
 * name and a dot. A required object says whether it is null or missing and what the model asks for there.
 */
function requiredChecks(
  shapes: Map<string, Shape>,
  c: Constraint | undefined,
  when: string,
  value: (field: string) => string,
  text: string,
  prefix: string,
  checks: Check[],
): void {
  const nullOrMissing = (field: string) =>
    `CASE WHEN json_exists(${text}, ${sqlString(`$."${field}"`)}) THEN ${sqlString(`${prefix}${field} is null`)} ELSE ${sqlString(`${prefix}${field} is missing`)} END`;
  for (const field of c?.required ?? []) {
    const shape = shapes.get(field);
    if (!requiredChecked(shape, c?.fields.get(field))) continue;
    if (shape?.kind === 'struct')
      checks.push({
        when: `${when}${value(field)} IS NULL`,
        says: `${nullOrMissing(field)} || ${sqlString(`; MDS 2.0 requires ${modelWords(c?.fields.get(field))}`)}`,
      });
    else
      checks.push({
        when: `${when}${value(field)} IS NULL`,
        says: sqlString(`${prefix}${field} is required and missing or null`),
      });
  }
  const group = oneRequiredGroup(shapes, c);
  if (group.length && c?.oneRequired) {
    const [first, ...others] = c.oneRequired;
    const otherNames = others.map((o) => `${prefix}${o.field}`).join(' or ');
    const words = `; MDS 2.0 requires ${modelWords(c.fields.get(first.field))} (or, ${others.map((o) => `${o.title ? `for a ${o.title.toLowerCase()}, ` : ''}${prefix}${o.field}`).join(', or ')})`;
    checks.push({
      when: `${when}${group.map(([f, shape]) => absent(shape, value(f))).join(' AND ')}`,
      says: `${nullOrMissing(first.field)} || ${sqlString(` and there are no ${otherNames}${words}`)}`,
    });
  }
}

/**
 * Whether a required field that is missing or null sets its item aside: a value (an id, a time, a number, a state),
 * a list (event_types) or an object (a trip's end_location, a status's last_telemetry: MDS 2.0.2 lets none of them be
 * null); not a field the model lets be null (a telemetry point's trip_ids and journey_id off trip).
 */
const requiredChecked = (shape: Shape | undefined, c: Constraint | undefined) => !!shape && !c?.nullable;

const listOf = (values: readonly string[]) => `[${values.map(sqlString).join(', ')}]`;

/** The CREATE TABLE … AS SELECT of a view's read table from its NDJSON files, one row per non-blank line. */
export function typedReadSql(
  endpoint: MdsEndpointId,
  files: string[],
  carried: readonly ItemColumn[],
  hourOfFile: string,
): { select: string; columns: string[] } {
  const shapes = itemShapesOf(endpoint);
  const constraint = itemConstraint(endpoint);
  const allFields = new Map<string, Shape>([
    ...shapes,
    ...carried.map((c): [string, Shape] => [c.name, { kind: 'scalar', type: 'VARCHAR' }]),
  ]);
  const typedType = `{${[...shapes.map(([n, s]) => [n, typeText(s)] as const), ...carried.map((c) => [c.name, c.type] as const)].map(([n, t]) => `${JSON.stringify(n)}: ${JSON.stringify(t)}`).join(', ')}}`;
  const layers: Layers = [];
  const checks: Check[] = [];
  for (const [field, shape] of shapes)
    checksOf(
      field,
      shape,
      constraint.fields.get(field),
      `_t.${sqlIdentifier(field)}`,
      `_k.${sqlIdentifier(field)}`,
      1,
      layers,
      checks,
    );
  requiredChecks(allFields, constraint, '', (f) => `_k.${sqlIdentifier(f)}`, '_text', '', checks);
  const problems = `nullif(concat_ws('; ', ${checks.map((c) => `CASE WHEN ${c.when} THEN ${c.says} END`).join(', ')}), '')`;
  const lines = `SELECT filename AS _file, _line, _text FROM (SELECT filename, unnest(string_split(content, chr(10))) AS _text, unnest(range(1, len(string_split(content, chr(10))) + 1)) AS _line FROM read_text([${files.map(sqlString).join(', ')}])) WHERE trim(_text) <> ''`;
  const parsed = `SELECT _file, _line, _text, CASE WHEN json_valid(_text) THEN json_type(_text) END AS _jt FROM (${lines})`;
  const typed = `SELECT _file, _line, _text, _jt, CASE WHEN _jt = 'OBJECT' THEN json_transform(_text, ${sqlString(typedType)}) END AS _t, CASE WHEN _jt = 'OBJECT' THEN json_transform(_text, ${skeletonOf(allFields)}) END AS _k FROM (${parsed})`;
  let from = `(${typed})`;
  for (const layer of layers.slice(1))
    from = `(SELECT *, ${layer.map((l) => `${l.expr} AS ${l.name}`).join(', ')} FROM ${from})`;
  const problem = `CASE WHEN _jt IS NULL THEN 'not JSON' WHEN _jt <> 'OBJECT' THEN 'a JSON ' || lower(_jt) || ', not an object' ELSE ${problems} END`;
  const columns = [...shapes.map(([n]) => n), ...carried.map((c) => c.name)];
  const select = `SELECT ${columns.map((n) => `_t.${sqlIdentifier(n)} AS ${sqlIdentifier(n)}`).join(', ')}, ${hourOfFile.replace(/filename/g, '_file')} AS _hour, _file, _line, _problem, CASE WHEN _problem IS NOT NULL THEN _text END AS _raw FROM (SELECT *, ${problem} AS _problem FROM ${from})`;
  return { select, columns };
}

/**
 * What the model asks of a typed row beyond its types, as one SQL condition over the typed columns: a required value
 * null, a value outside the model's enum, a null in a list. DuckDB's typed read (read_json with the model's columns)
 * fails on a value of another type, but accepts these; a file with such a row is read again line by line.
 */
export function typedProblemSql(endpoint: MdsEndpointId, carried: readonly ItemColumn[]): string {
  const shapes = itemShapesOf(endpoint);
  const constraint = itemConstraint(endpoint);
  const allFields = new Map<string, Shape>([
    ...shapes,
    ...carried.map((c): [string, Shape] => [c.name, { kind: 'scalar', type: 'VARCHAR' }]),
  ]);
  const conditions: string[] = [];
  const walk = (shape: Shape, c: Constraint | undefined, typed: string): void => {
    if (shape.kind === 'scalar' && shape.type === 'VARCHAR' && c?.enumValues)
      conditions.push(`(${typed} IS NOT NULL AND NOT list_contains(${listOf(c.enumValues)}, ${typed}))`);
    if (shape.kind === 'list') {
      conditions.push(`list_count(${typed}) <> len(${typed})`);
      if (c?.itemEnum)
        conditions.push(`len(list_filter(${typed}, x -> NOT list_contains(${listOf(c.itemEnum)}, x))) > 0`);
    }
    if (shape.kind === 'struct') {
      for (const [field, inner] of shape.fields) walk(inner, c?.fields.get(field), `${typed}.${sqlIdentifier(field)}`);
      for (const field of c?.required ?? []) {
        if (requiredChecked(shape.fields.get(field), c?.fields.get(field)))
          conditions.push(`(${typed} IS NOT NULL AND ${typed}.${sqlIdentifier(field)} IS NULL)`);
      }
      const group = oneRequiredGroup(shape.fields, c);
      if (group.length)
        conditions.push(
          `(${typed} IS NOT NULL AND ${group.map(([f, s]) => typedAbsent(s, `${typed}.${sqlIdentifier(f)}`)).join(' AND ')})`,
        );
    }
  };
  for (const [field, shape] of shapes) walk(shape, constraint.fields.get(field), sqlIdentifier(field));
  for (const field of constraint.required) {
    if (requiredChecked(allFields.get(field), constraint.fields.get(field)))
      conditions.push(`${sqlIdentifier(field)} IS NULL`);
  }
  const group = oneRequiredGroup(allFields, constraint);
  if (group.length) conditions.push(`(${group.map(([f, s]) => typedAbsent(s, sqlIdentifier(f))).join(' AND ')})`);
  return conditions.length ? `coalesce(${conditions.join(' OR ')}, false)` : 'false';
}

/** The fields of an `anyOf` of which one is required, with their shapes; empty when the object has none (or not all). */
function oneRequiredGroup(shapes: Map<string, Shape>, c: Constraint | undefined): [string, Shape][] {
  const group = (c?.oneRequired ?? []).flatMap((b): [string, Shape][] => {
    const shape = shapes.get(b.field);
    return shape ? [[b.field, shape]] : [];
  });
  return group.length > 1 && group.length === c?.oneRequired?.length ? group : [];
}

/** Whether a typed value is absent (null; for a list, also empty). */
const typedAbsent = (shape: Shape, typed: string) =>
  shape.kind === 'list' ? `(${typed} IS NULL OR len(${typed}) = 0)` : `${typed} IS NULL`;

/** Above this a DOUBLE no longer holds every integer (2^53): such a value is read line by line, exactly. */
const EXACT_DOUBLE = 9_007_199_254_740_992;

/**
 * How the typed reader reads the model's integers in one pass: as DOUBLE (DuckDB's `read_json` reads 6.25 into a
 * BIGINT column as 6, without a word), with the condition of a row holding one that is not whole (or too large for a
 * DOUBLE to hold exactly), and each column cast back to the model's type. `readType`: a column's type for `read_json`
 * (only the columns holding an integer); `typedOf(column)`: its value in the model's type; `notWhole`: the condition.
 */
export function integersReadAsDoubles(endpoint: MdsEndpointId): {
  readType: Map<string, string>;
  typedOf: (name: string) => string;
  notWhole: string;
} {
  const holdsInteger = (shape: Shape): boolean =>
    shape.kind === 'scalar'
      ? shape.type === 'BIGINT'
      : shape.kind === 'struct'
        ? [...shape.fields.values()].some(holdsInteger)
        : shape.kind === 'list' && holdsInteger(shape.item);
  const doubled = (shape: Shape): Shape => {
    if (shape.kind === 'scalar' && shape.type === 'BIGINT') return { kind: 'scalar', type: 'DOUBLE' };
    if (shape.kind === 'struct')
      return { kind: 'struct', fields: new Map([...shape.fields].map(([f, inner]) => [f, doubled(inner)])) };
    if (shape.kind === 'list') return { kind: 'list', item: doubled(shape.item) };
    return shape;
  };
  const conditions: string[] = [];
  const walk = (shape: Shape, expr: string, depth: number): string[] => {
    if (!holdsInteger(shape)) return [];
    if (shape.kind === 'scalar') return [`(${expr} <> trunc(${expr}) OR abs(${expr}) >= ${EXACT_DOUBLE})`];
    if (shape.kind === 'struct')
      return [...shape.fields].flatMap(([f, inner]) => walk(inner, `${expr}.${sqlIdentifier(f)}`, depth));
    if (shape.kind === 'list')
      return [`len(list_filter(${expr}, _w${depth} -> ${walk(shape.item, `_w${depth}`, depth + 1).join(' OR ')})) > 0`];
    return [];
  };
  const readType = new Map<string, string>();
  const modelType = new Map<string, string>();
  for (const [name, shape] of itemShapesOf(endpoint)) {
    if (!holdsInteger(shape)) continue;
    readType.set(name, typeText(doubled(shape)));
    modelType.set(name, typeText(shape));
    conditions.push(...walk(shape, sqlIdentifier(name), 0));
  }
  const typedOf = (name: string) =>
    modelType.has(name) ? `TRY_CAST(${sqlIdentifier(name)} AS ${modelType.get(name) as string})` : sqlIdentifier(name);
  return { readType, typedOf, notWhole: conditions.length ? `coalesce(${conditions.join(' OR ')}, false)` : 'false' };
}
