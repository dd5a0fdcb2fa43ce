/**
 * The schema of the fast pass (see `CompiledMdsSchema.fastItem`): a copy of the corrected schema rewritten so that ajv
 * says "conforms" sooner. It only answers yes or no: an item it refuses is checked again against the corrected schema,
 * which gives the findings. So every rewrite must keep "the rewritten schema accepts ⇒ the corrected schema accepts"
 * (it may refuse more: that costs time, never a finding); the findings never come from here.
 */
import type { SchemaObject } from './schemaCorrections';

/** models/data-types/uuid.yaml's pattern: lowercase hex in 8-4-4-4-12 groups, nothing around them. */
export const UUID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';

/** A local `$ref`'s target in `defs`. */
function target(defs: Record<string, unknown>, ref: unknown): SchemaObject | undefined {
  if (typeof ref !== 'string' || !ref.startsWith('#/$defs/')) return undefined;
  const schema = defs[ref.slice('#/$defs/'.length)];
  return schema && typeof schema === 'object' ? (schema as SchemaObject) : undefined;
}

/**
 * The JSON types one of which a value must have to pass `schema`, from its `type` or else its `$ref`'s (a `$ref` applies
 * beside the other keywords); undefined when that is not said. `number` includes `integer`.
 */
function typesOf(defs: Record<string, unknown>, schema: SchemaObject, depth = 0): string[] | undefined {
  const type = schema.type;
  const widen = (t: string) => (t === 'number' ? ['number', 'integer'] : [t]);
  if (typeof type === 'string') return widen(type);
  if (Array.isArray(type) && type.every((t) => typeof t === 'string')) return type.flatMap(widen);
  const referenced = target(defs, schema.$ref);
  return referenced && depth < 20 ? typesOf(defs, referenced, depth + 1) : undefined;
}

/**
 * ajv checks `multipleOf: 1` as `x !== parseInt(x)`, which turns the number into text and back (a tenth of the fast
 * pass over /vehicles/status, whose timestamps carry it). That accepts exactly the whole numbers below 1e21 in size:
 * from 1e21 on, the text is "1e+21" and parseInt reads 1.
 */
const WHOLE_NUMBER_LIMIT = 1e21;

/**
 * Returns a rewritten deep copy of `defs` (a document's `$defs`):
 * - `type: number` with `multipleOf: 1` becomes `type: integer` between -1e21 and 1e21 (exclusive): the same numbers,
 *   checked with `% 1` instead of through text (ajv's integer check alone would also take Infinity);
 * - `format: uuid` beside {@link UUID_PATTERN} is dropped: every string the pattern accepts is one that ajv-formats'
 *   uuid format accepts (its expression is the same groups, case-insensitive, with an optional `urn:uuid:`), so the
 *   format adds nothing but a second regular expression per id;
 * - a `oneOf` whose branches each fix the same property to different constants (models/modes/<mode>/event.yaml on
 *   `vehicle_state`) gets ajv's `discriminator` on it and that property `required`: only the branch of the item's
 *   value is checked, and no other branch can pass (each requires another value of a property that is present);
 * - a `oneOf` whose branches require pairwise different JSON types (a list or null, an id or null) becomes `anyOf`:
 *   at most one branch can pass, so "at least one" is "exactly one", and ajv stops at the first that passes.
 */
export function fastPassDefs(defs: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(defs);
  // A branch that is only a `$ref` is read through it, as ajv's discriminator does.
  const resolve = (schema: unknown): SchemaObject | undefined => {
    if (!schema || typeof schema !== 'object') return undefined;
    const only = Object.keys(schema).length === 1 ? target(copy, (schema as SchemaObject).$ref) : undefined;
    return only ?? (schema as SchemaObject);
  };
  const visit = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    const schema = node as SchemaObject;
    if (schema.format === 'uuid' && schema.pattern === UUID_PATTERN) delete schema.format;
    if (
      schema.type === 'number' &&
      schema.multipleOf === 1 &&
      !('exclusiveMinimum' in schema) &&
      !('exclusiveMaximum' in schema)
    ) {
      schema.type = 'integer';
      delete schema.multipleOf;
      schema.exclusiveMinimum = -WHOLE_NUMBER_LIMIT;
      schema.exclusiveMaximum = WHOLE_NUMBER_LIMIT;
    }
    if (Array.isArray(schema.oneOf) && !('discriminator' in schema)) {
      const branches = (schema.oneOf as unknown[]).map(resolve);
      // Only on objects: ajv's discriminator (and `required`) ignore other values, which every branch would then pass.
      const objectsOnly = typesOf(copy, schema)?.join() === 'object';
      const tag = objectsOnly ? discriminatingProperty(branches) : undefined;
      if (tag !== undefined) {
        schema.discriminator = { propertyName: tag };
        const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
        if (!required.includes(tag)) schema.required = [...required, tag];
      } else if (disjointTypes(copy, branches)) {
        schema.anyOf = schema.oneOf;
        delete schema.oneOf;
      }
    }
    for (const child of Object.values(schema)) visit(child);
  };
  visit(copy);
  return copy;
}

/** The property every branch fixes to its own string constant, if there is one. */
function discriminatingProperty(branches: (SchemaObject | undefined)[]): string | undefined {
  const first = branches[0]?.properties as Record<string, SchemaObject> | undefined;
  if (!first || branches.length < 2) return undefined;
  for (const tag of Object.keys(first)) {
    const values = branches.map((b) => (b?.properties as Record<string, SchemaObject> | undefined)?.[tag]?.const);
    if (values.every((v) => typeof v === 'string') && new Set(values).size === values.length) return tag;
  }
  return undefined;
}

function disjointTypes(defs: Record<string, unknown>, branches: (SchemaObject | undefined)[]): boolean {
  const seen = new Set<string>();
  for (const branch of branches) {
    const types = branch && typesOf(defs, branch);
    if (!types) return false;
    for (const type of types) {
      if (seen.has(type)) return false;
      seen.add(type);
    }
  }
  return branches.length > 1;
}

/** Keywords whose value is one schema, a list of schemas, or schemas by name (JSON Schema 2020-12). */
const ONE_SCHEMA = new Set([
  'not',
  'if',
  'then',
  'else',
  'items',
  'contains',
  'additionalProperties',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
]);
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'dependentSchemas']);

/**
 * `schema` with every local `$ref` (`#/$defs/<name>`) replaced by a copy of its target, itself expanded: ajv then
 * compiles the fast pass as one function instead of a call per reference (each with an object of its own for ajv's
 * context: 3 to 4 calls and objects per id, a dozen ids per /vehicles/status item). A `$ref` alone becomes its
 * target; beside other keywords it becomes one more `allOf` entry, which is what a 2020-12 `$ref` means. A reference
 * inside its own target (recursion) or to anything but a name in `defs` stays a `$ref`, for `defs` to resolve.
 */
export function inlineLocalRefs(defs: Record<string, unknown>, schema: unknown): unknown {
  const expand = (node: unknown, open: readonly string[]): unknown => {
    if (!node || typeof node !== 'object' || Array.isArray(node)) return node;
    const source = node as SchemaObject;
    const copy: SchemaObject = {};
    for (const [key, value] of Object.entries(source)) {
      if (key === '$ref') continue;
      if (ONE_SCHEMA.has(key)) copy[key] = expand(value, open);
      else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) copy[key] = value.map((child) => expand(child, open));
      else if (SCHEMA_MAPS.has(key) && value && typeof value === 'object')
        copy[key] = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, expand(child, open)]));
      else copy[key] = value;
    }
    if (source.$ref === undefined) return copy;
    const ref = source.$ref;
    const name = typeof ref === 'string' && ref.startsWith('#/$defs/') ? ref.slice('#/$defs/'.length) : undefined;
    if (name === undefined || open.includes(name) || !Object.prototype.hasOwnProperty.call(defs, name)) {
      copy.$ref = ref;
      return copy;
    }
    const target = expand(defs[name], [...open, name]);
    if (Object.keys(copy).length === 0) return target;
    copy.allOf = [...(Array.isArray(copy.allOf) ? (copy.allOf as unknown[]) : []), target];
    return copy;
  };
  return expand(schema, []);
}

/** Accepted strings remembered per pattern, at most (then forgotten all at once). */
const REMEMBERED = 1024;
/** Longer strings are matched every time (ids are 36 characters). */
const REMEMBERED_LENGTH = 64;

/**
 * ajv's `code.regExp` for the fast pass: the real `RegExp` of each `pattern`, remembering the short strings it
 * accepted, because ids repeat within an item and a page (a /vehicles/status item has its device_id three times, and
 * every item of a page the same provider_id). The answer for a string is the RegExp's own, computed once.
 */
export const rememberingRegExp = Object.assign(
  (pattern: string, flags: string): { test(s: string): boolean; toString(): string } => {
    const regExp = new RegExp(pattern, flags);
    let accepted = new Set<string>();
    return {
      test(s: string): boolean {
        if (accepted.has(s)) return true;
        const ok = regExp.test(s);
        if (ok && s.length <= REMEMBERED_LENGTH) {
          if (accepted.size >= REMEMBERED) accepted = new Set();
          accepted.add(s);
        }
        return ok;
      },
      // ajv keeps one per distinct text (its scope is keyed by this).
      toString: () => regExp.toString(),
    };
  },
  { code: 'rememberingRegExp' },
);
