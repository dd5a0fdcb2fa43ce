// What the JSON tree (jsonTree.ts) reads from the value itself, never from the DOM: a container's entries and size,
// a primitive's text, the paths to the matches of a search, and the path a JSON Pointer names.
import * as l10n from '@vscode/l10n';
import { formatCount } from '../../shared/format';

const MAX_STRING_SHOWN = 2000;
const MAX_MATCHES = 500;
const MAX_VISITED = 5_000_000;

/** The keys and indexes from the root to a node. */
export type Path = (string | number)[];

export function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  return typeof value === 'object' && value !== null;
}

export function entriesOf(value: Record<string, unknown> | unknown[]): [string | number, unknown][] {
  return Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
}

export function sizeOf(value: Record<string, unknown> | unknown[]): number {
  return Array.isArray(value) ? value.length : Object.keys(value).length;
}

export function primitiveText(value: unknown): { text: string; kind: string } {
  if (value === null) return { text: 'null', kind: 'null' };
  switch (typeof value) {
    case 'string': {
      const shown =
        value.length > MAX_STRING_SHOWN
          ? l10n.t('{0}… ({1} characters)', value.slice(0, MAX_STRING_SHOWN), formatCount(value.length))
          : value;
      return { text: JSON.stringify(shown), kind: 'string' };
    }
    case 'number':
      return { text: String(value), kind: 'number' };
    case 'boolean':
      return { text: String(value), kind: 'boolean' };
    default:
      return { text: typeof value, kind: 'other' };
  }
}

/**
 * The paths to keys and primitive values of `root` that contain `q` (already lower case), in document order, up to
 * MAX_MATCHES; `capped` when the walk stopped early (too many matches, or too many nodes visited).
 */
export function findMatches(root: unknown, q: string): { matches: Path[]; capped: boolean } {
  const matches: Path[] = [];
  let visited = 0;
  let capped = false;
  // Iterative, so deep documents cannot overflow the stack.
  const stack: { value: unknown; path: Path }[] = [{ value: root, path: [] }];
  while (stack.length) {
    const { value, path } = stack.pop() as { value: unknown; path: Path };
    if (++visited > MAX_VISITED || matches.length >= MAX_MATCHES) {
      capped = true;
      break;
    }
    if (isContainer(value)) {
      const entries = entriesOf(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, v] = entries[i];
        const childPath = [...path, k];
        if (typeof k === 'string' && k.toLowerCase().includes(q)) matches.push(childPath);
        stack.push({ value: v, path: childPath });
      }
    } else if (
      path.length &&
      (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') &&
      String(value).toLowerCase().includes(q)
    ) {
      const last = matches[matches.length - 1];
      if (!last || last.join('\u0000') !== path.join('\u0000')) matches.push(path);
    }
  }
  return { matches, capped };
}

/**
 * The path a JSON Pointer (RFC 6901) names in `root`. A place that does not exist (a missing property) ends the path
 * at its nearest existing parent.
 */
export function pointerPath(root: unknown, pointer: string): Path {
  const path: Path = [];
  let value: unknown = root;
  for (const raw of pointer === '' ? [] : pointer.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(value)) {
      const index = Number(segment);
      if (!Number.isInteger(index) || index < 0 || index >= value.length) break;
      path.push(index);
      value = value[index];
    } else if (isContainer(value) && Object.hasOwn(value, segment)) {
      path.push(segment);
      value = (value as Record<string, unknown>)[segment];
    } else {
      break;
    }
  }
  return path;
}
