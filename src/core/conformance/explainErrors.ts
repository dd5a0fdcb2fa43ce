/**
 * Turns the raw ajv errors of one validation into findings a person can act on: the errors of the branches of a
 * failed oneOf/anyOf are folded into it (or, when one branch is clearly the one meant, e.g. the branch whose
 * `vehicle_state` matched, replaced by that branch's errors), `if` errors give way to their `then` errors, and every
 * message says what was expected without repeating the value (so that equal problems group into one rule).
 */
import * as l10n from '@vscode/l10n';
import type { ErrorObject } from 'ajv';
import type { SchemaCorrectionId, SchemaObject } from './schemaCorrections';

/** One problem at one place of a response. */
export interface ConformanceFinding {
  /** JSON Pointer (RFC 6901) into the response body of the place that breaks the rule; `''` is the whole body. */
  path: string;
  /** The ajv keyword of the rule broken: `required`, `enum`, `oneOf`, `pattern`, ... */
  keyword: string;
  /** What the rule expects, readable: `missing required property device_id`. */
  message: string;
  /** The value found at `path`: JSON, truncated, with control and bidirectional characters escaped. */
  value: string;
  /** Where in the bundled schema the rule is (`#/$defs/<file>/...`, relative to the compiled document). */
  schemaPath: string;
  /** Set when the official schema's known bug (see schemaCorrections.ts) causes this finding, not the provider. */
  schemaBug?: SchemaCorrectionId;
}

const MAX_VALUE_CHARS = 120;
const MAX_LISTED = 16;
// C0 and C1 controls, DEL and the bidirectional overrides and isolates: escaped so that a value cannot drive a terminal
// or reorder the text around it.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** JSON of a value, at most MAX_VALUE_CHARS, safe to print: no control, C1 or bidi characters left raw. */
export function previewValue(value: unknown): string {
  let text: string;
  try {
    // JSON.stringify gives undefined for undefined, functions and symbols; a body parsed from JSON has none of them.
    text = value === undefined ? '(absent)' : (JSON.stringify(value) ?? typeof value);
  } catch {
    text = typeof value;
  }
  if (text.length > MAX_VALUE_CHARS) text = `${text.slice(0, MAX_VALUE_CHARS - 1)}…`;
  return text.replace(UNSAFE_CHARACTERS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function listed(values: readonly unknown[]): string {
  const shown = values.slice(0, MAX_LISTED).map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
  return values.length > MAX_LISTED ? `${shown.join(', ')}, … (${values.length} in all)` : shown.join(', ');
}

function titleOf(schema: unknown, fallback: string): string {
  const s = schema as SchemaObject | undefined;
  if (s && typeof s.title === 'string') return s.title;
  if (s && typeof s.$ref === 'string') return s.$ref.replace('#/$defs/models.', '').split('.').join('/');
  return fallback;
}

/** The readable rule of one ajv error. */
function messageOf(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return l10n.t('missing required property {0}', String(p.missingProperty));
    case 'additionalProperties':
      return l10n.t('unexpected property {0}', String(p.additionalProperty));
    case 'enum':
      return l10n.t('must be one of: {0}', listed(p.allowedValues as unknown[]));
    case 'const':
      return l10n.t('must be {0}', JSON.stringify(p.allowedValue));
    case 'type':
      return l10n.t('must be of type {0}', Array.isArray(p.type) ? p.type.join(' or ') : String(p.type));
    case 'pattern':
      return l10n.t('must match the pattern {0}', String(p.pattern));
    case 'format':
      return l10n.t('must be a valid {0}', String(p.format));
    case 'oneOf':
    case 'anyOf': {
      const branches = Array.isArray(error.schema) ? error.schema : [];
      const titles = branches.map((b, i) => titleOf(b, `alternative ${i + 1}`));
      const passing = p.passingSchemas;
      if (Array.isArray(passing)) {
        // ajv stops at the second match: "more than one", not a count.
        return l10n.t(
          'matches more than one alternative ({0}) where exactly one is allowed',
          listed(passing.map((i: number) => titles[i])),
        );
      }
      return l10n.t('matches none of the alternatives: {0}', listed(titles));
    }
    default:
      return error.message ?? error.keyword;
  }
}

function isWithin(path: string, parent: string): boolean {
  return path === parent || path.startsWith(`${parent}/`);
}

/** Resolves a bundle-internal `$ref` (`#/$defs/<key>` and JSON Pointers below it). */
function resolveRef(root: SchemaObject, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const segment = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    node = node && typeof node === 'object' ? (node as Record<string, unknown>)[segment] : undefined;
  }
  return node;
}

/** Every schema object reachable from `schema`, following `$ref`s within the document. */
function reachable(root: SchemaObject, schema: unknown, seen = new Set<object>()): Set<object> {
  if (!schema || typeof schema !== 'object' || seen.has(schema)) return seen;
  seen.add(schema);
  if (Array.isArray(schema)) {
    for (const entry of schema) reachable(root, entry, seen);
    return seen;
  }
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$ref' && typeof value === 'string') reachable(root, resolveRef(root, value), seen);
    else if (key !== 'enum' && key !== 'const' && key !== 'required' && value && typeof value === 'object')
      reachable(root, value, seen);
  }
  return seen;
}

/** Per combinator (the branch array of a oneOf/anyOf): for each branch, the schema objects it reaches. Cached. */
export class BranchIndex {
  private readonly cache = new WeakMap<object, Set<object>[]>();

  constructor(private readonly root: SchemaObject) {}

  branchesOf(combinator: unknown[]): Set<object>[] {
    let sets = this.cache.get(combinator);
    if (!sets) {
      sets = combinator.map((branch) => reachable(this.root, branch));
      this.cache.set(combinator, sets);
    }
    return sets;
  }
}

interface Node {
  error: ErrorObject;
  /** For oneOf/anyOf: the errors of its branches, by branch. */
  branches?: Node[][];
}

/**
 * Nests the flat error list: ajv reports the errors of a combinator's branches right before the combinator's own
 * error, so walking backwards from it, the errors below its instance path whose schema is reachable from one of its
 * branches are its branch errors.
 */
function nest(errors: readonly ErrorObject[], index: BranchIndex): Node[] {
  const stack: Node[] = [];
  for (const error of errors) {
    const node: Node = { error };
    if ((error.keyword === 'oneOf' || error.keyword === 'anyOf') && Array.isArray(error.schema)) {
      const sets = index.branchesOf(error.schema);
      const branches: Node[][] = sets.map(() => []);
      while (stack.length) {
        const previous = stack[stack.length - 1];
        if (!isWithin(previous.error.instancePath, error.instancePath)) break;
        const at = sets.findIndex((set) => set.has(previous.error.parentSchema as object));
        if (at < 0) break;
        branches[at].unshift(previous);
        stack.pop();
      }
      node.branches = branches;
    }
    stack.push(node);
  }
  return stack;
}

/** A branch that was clearly meant: none of its errors is a `const` or `type` mismatch of a discriminating value. */
function meantBranch(node: Node): Node[] | undefined {
  const branches = node.branches ?? [];
  if (Array.isArray((node.error.params as { passingSchemas?: unknown }).passingSchemas)) return undefined;
  const candidates = branches.filter(
    (b) =>
      b.length > 0 &&
      !b.some(
        (n) =>
          n.error.keyword === 'const' ||
          (n.error.keyword === 'type' && n.error.instancePath === node.error.instancePath),
      ),
  );
  return candidates.length === 1 ? candidates[0] : undefined;
}

function flatten(
  nodes: Node[],
  context: string | undefined,
  out: { error: ErrorObject; context?: string; from: Node }[],
): void {
  for (const node of nodes) {
    // An `if` error only says "must match then"; the `then` errors beside it say what is missing.
    if (node.error.keyword === 'if') continue;
    const meant = node.branches && meantBranch(node);
    if (meant) {
      const branchSchemas = node.error.schema as unknown[];
      const at = node.branches!.indexOf(meant);
      const owner = titleOf(node.error.parentSchema, '');
      const label = `${titleOf(branchSchemas[at], `alternative ${at + 1}`)}${owner ? ` of ${owner}` : ''}`;
      flatten(meant, label, out);
    } else {
      out.push({ error: node.error, context, from: node });
    }
  }
}

function bugOf(node: Node, bugs: ReadonlyMap<object, SchemaCorrectionId>): SchemaCorrectionId | undefined {
  const own = bugs.get(node.error.parentSchema as object);
  if (own) return own;
  for (const branch of node.branches ?? []) {
    for (const child of branch) {
      const found = bugOf(child, bugs);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * The findings of one validation. `prefix` is the JSON Pointer of the validated value within the response (an item's
 * `/vehicles/3`); `bugs` (official variant) labels the findings caused by a known bug of the official schema.
 */
export function explainErrors(
  errors: readonly ErrorObject[],
  index: BranchIndex,
  prefix: string,
  bugs?: ReadonlyMap<object, SchemaCorrectionId>,
): ConformanceFinding[] {
  const flat: { error: ErrorObject; context?: string; from: Node }[] = [];
  flatten(nest(errors, index), undefined, flat);
  // The same rule at the same place through several paths (an allOf of `type: object` members) is one finding.
  const seen = new Set<string>();
  const unique = flat.filter(({ error, context }) => {
    const key = `${error.instancePath}\u0000${error.keyword}\u0000${messageOf(error)}\u0000${context ?? ''}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return unique.map(({ error, context, from }) => {
    const finding: ConformanceFinding = {
      path: `${prefix}${error.instancePath}`,
      keyword: error.keyword,
      message: context ? `${messageOf(error)} (${context})` : messageOf(error),
      value: previewValue(error.data),
      schemaPath: error.schemaPath,
    };
    const bug = bugs && bugOf(from, bugs);
    if (bug) finding.schemaBug = bug;
    return finding;
  });
}
