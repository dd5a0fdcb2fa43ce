// The elements of the JSON tree (jsonTree.ts): a node's row (its key, and its value or a summary of its children)
// and the "Show more" row after a chunk of children. What a click or a key does with them is the tree's.
import * as l10n from '@vscode/l10n';
import { formatCount, plural } from '../../shared/format';
import { h } from '../dom';
import { isContainer, primitiveText, sizeOf } from './jsonValue';

/** How many children a node renders at a time. */
export const CHUNK = 200;

export interface TreeNode {
  el: HTMLElement;
  depth: number;
  value: unknown;
  children?: HTMLElement;
  /** How many children are rendered so far. */
  rendered: number;
  open: boolean;
  toggle?: HTMLElement;
  childNodes: Map<string | number, TreeNode>;
}

/** A closed node for `value` under `key` (the root shows no key), and its line, which takes the clicks. */
export function treeNode(
  key: string | number,
  value: unknown,
  depth: number,
  position: number,
  setSize: number,
  isRoot: boolean,
): { tn: TreeNode; line: HTMLElement } {
  // Named from its content, as in the WAI-ARIA tree examples (browsers leave the nested group out).
  const el = h('div', {
    class: 'jt-node',
    role: 'treeitem',
    tabindex: -1,
    'aria-level': depth + 1,
    'aria-setsize': setSize,
    'aria-posinset': position,
  });
  const line = h('div', { class: 'jt-line' });
  el.appendChild(line);
  const tn: TreeNode = { el, depth, value, rendered: 0, open: false, childNodes: new Map() };
  line.style.paddingLeft = `${depth * 14}px`;
  if (isContainer(value)) {
    const toggle = h('span', { class: 'jt-toggle', 'aria-hidden': 'true' }, '▸');
    tn.toggle = toggle;
    el.setAttribute('aria-expanded', 'false');
    const n = sizeOf(value);
    const summary = Array.isArray(value) ? `[ ${plural(n, 'item')} ]` : `{ ${plural(n, 'key')} }`;
    line.append(
      toggle,
      isRoot ? '' : h('span', { class: 'jt-key' }, typeof key === 'number' ? String(key) : JSON.stringify(key)),
      isRoot ? '' : ': ',
      h('span', { class: 'jt-summary muted' }, summary),
    );
  } else {
    const { text, kind } = primitiveText(value);
    line.append(
      h('span', { class: 'jt-toggle', 'aria-hidden': 'true' }),
      isRoot ? '' : h('span', { class: 'jt-key' }, typeof key === 'number' ? String(key) : JSON.stringify(key)),
      isRoot ? '' : ': ',
      h('span', { class: `jt-value jt-${kind}` }, text),
    );
  }
  return { tn, line };
}

/** The "Show more" row at `depth` when `end` of `total` children are rendered. */
export function moreRow(depth: number, end: number, total: number): HTMLElement {
  const more = h(
    'div',
    { class: 'jt-node jt-more', role: 'treeitem', tabindex: -1, 'aria-level': depth + 1, 'data-testid': 'json-more' },
    h(
      'div',
      { class: 'jt-line' },
      l10n.t(
        'Show {0} more ({1} of {2} shown)',
        formatCount(Math.min(CHUNK, total - end)),
        formatCount(end),
        formatCount(total),
      ),
    ),
  );
  (more.firstChild as HTMLElement).style.paddingLeft = `${depth * 14 + 14}px`;
  return more;
}
