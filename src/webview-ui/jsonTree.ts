// A collapsible JSON tree that builds nodes only when they are opened, and long arrays in chunks,
// so a 50 MB body opens at once. Search walks the value (not the DOM), then opens the paths to the
// matches. Keys and values are set as text: a string holding markup shows as that string.
import { button, clear, formatCount, h } from './dom';

const CHUNK = 200;
const MAX_STRING_SHOWN = 2000;
const MAX_MATCHES = 500;
const MAX_VISITED = 5_000_000;

type Path = (string | number)[];

function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  return typeof value === 'object' && value !== null;
}

function entriesOf(value: Record<string, unknown> | unknown[]): [string | number, unknown][] {
  return Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
}

function sizeOf(value: Record<string, unknown> | unknown[]): number {
  return Array.isArray(value) ? value.length : Object.keys(value).length;
}

function primitiveText(value: unknown): { text: string; kind: string } {
  if (value === null) return { text: 'null', kind: 'null' };
  switch (typeof value) {
    case 'string': {
      const shown = value.length > MAX_STRING_SHOWN ? `${value.slice(0, MAX_STRING_SHOWN)}… (${formatCount(value.length)} characters)` : value;
      return { text: JSON.stringify(shown), kind: 'string' };
    }
    case 'number': return { text: String(value), kind: 'number' };
    case 'boolean': return { text: String(value), kind: 'boolean' };
    default: return { text: typeof value, kind: 'other' };
  }
}

interface TreeNode {
  el: HTMLElement;
  value: unknown;
  children?: HTMLElement;
  /** How many children are rendered so far. */
  rendered: number;
  open: boolean;
  toggle?: HTMLElement;
  childNodes: Map<string | number, TreeNode>;
}

export class JsonTree {
  readonly element: HTMLElement;
  private readonly host: HTMLElement;
  private readonly status: HTMLElement;
  private readonly search: HTMLElement & { value: string };
  private root: TreeNode | undefined;
  private matches: Path[] = [];
  private current = -1;
  private marked: HTMLElement[] = [];

  constructor() {
    this.search = h('vscode-textfield', { placeholder: 'Search keys and values (Enter)', 'data-testid': 'json-search', 'aria-label': 'Search the JSON' });
    this.search.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        if (this.matches.length && this.search.value === this.lastQuery) this.step(e.shiftKey ? -1 : 1);
        else this.runSearch(this.search.value);
      }
    });
    this.status = h('span', { class: 'muted', role: 'status', 'data-testid': 'json-search-status' });
    const prev = button('Previous', () => this.step(-1), { secondary: true });
    const next = button('Next', () => this.step(1), { secondary: true });
    const collapse = button('Collapse all', () => this.collapseAll(), { secondary: true });
    this.host = h('div', { class: 'jt', role: 'tree', 'data-testid': 'json-tree' });
    this.element = h('div', { class: 'jt-wrap' }, h('div', { class: 'toolbar' }, this.search, prev, next, collapse, this.status), this.host);
  }

  private lastQuery = '';

  setValue(value: unknown): void {
    clear(this.host);
    this.matches = [];
    this.current = -1;
    this.status.textContent = '';
    this.root = this.node('', value, 0, true);
    this.host.appendChild(this.root.el);
    if (this.root.toggle) this.setOpen(this.root, true);
    // Open the first level of a small document (a listing's top-level keys) to save a click.
    for (const child of this.root.childNodes.values()) {
      if (isContainer(child.value) && sizeOf(child.value) <= 50 && !Array.isArray(this.root.value)) this.setOpen(child, false);
    }
  }

  private node(key: string | number, value: unknown, depth: number, isRoot = false): TreeNode {
    const el = h('div', { class: 'jt-node', role: 'treeitem' });
    const line = h('div', { class: 'jt-line' });
    el.appendChild(line);
    const tn: TreeNode = { el, value, rendered: 0, open: false, childNodes: new Map() };
    line.style.paddingLeft = `${depth * 14}px`;
    if (isContainer(value)) {
      const toggle = h('span', { class: 'jt-toggle', 'aria-hidden': 'true' }, '▸');
      tn.toggle = toggle;
      el.setAttribute('aria-expanded', 'false');
      const n = sizeOf(value);
      const summary = Array.isArray(value) ? `[ ${formatCount(n)} item${n === 1 ? '' : 's'} ]` : `{ ${formatCount(n)} key${n === 1 ? '' : 's'} }`;
      line.append(toggle, isRoot ? '' : h('span', { class: 'jt-key' }, typeof key === 'number' ? String(key) : JSON.stringify(key)), isRoot ? '' : ': ', h('span', { class: 'jt-summary muted' }, summary));
      line.addEventListener('click', () => this.setOpen(tn, !tn.open));
    } else {
      const { text, kind } = primitiveText(value);
      line.append(h('span', { class: 'jt-toggle', 'aria-hidden': 'true' }), isRoot ? '' : h('span', { class: 'jt-key' }, typeof key === 'number' ? String(key) : JSON.stringify(key)), isRoot ? '' : ': ', h('span', { class: `jt-value jt-${kind}` }, text));
    }
    (el as HTMLElement & { jtDepth?: number }).jtDepth = depth;
    return tn;
  }

  private setOpen(tn: TreeNode, open: boolean): void {
    if (!tn.toggle || !isContainer(tn.value)) return;
    tn.open = open;
    tn.toggle.textContent = open ? '▾' : '▸';
    tn.el.setAttribute('aria-expanded', String(open));
    if (open && !tn.children) {
      tn.children = h('div', { class: 'jt-children', role: 'group' });
      tn.el.appendChild(tn.children);
      this.renderMore(tn, CHUNK);
    }
    if (tn.children) tn.children.hidden = !open;
  }

  /** Renders children of `tn` until at least `upTo` exist (a "show more" row follows when some remain). */
  private renderMore(tn: TreeNode, upTo: number): void {
    if (!tn.children || !isContainer(tn.value)) return;
    const depth = ((tn.el as HTMLElement & { jtDepth?: number }).jtDepth ?? 0) + 1;
    const entries = entriesOf(tn.value);
    tn.children.querySelector(':scope > .jt-more')?.remove();
    const end = Math.min(entries.length, Math.max(upTo, tn.rendered + CHUNK));
    const fragment = document.createDocumentFragment();
    for (let i = tn.rendered; i < end; i++) {
      const [k, v] = entries[i];
      const child = this.node(k, v, depth);
      tn.childNodes.set(k, child);
      fragment.appendChild(child.el);
    }
    tn.rendered = end;
    tn.children.appendChild(fragment);
    if (end < entries.length) {
      const more = button(`Show ${formatCount(Math.min(CHUNK, entries.length - end))} more (${formatCount(end)} of ${formatCount(entries.length)} shown)`, () => this.renderMore(tn, tn.rendered + CHUNK), { secondary: true, class: 'jt-more' });
      more.style.marginLeft = `${depth * 14}px`;
      tn.children.appendChild(more);
    }
  }

  private collapseAll(): void {
    if (!this.root) return;
    const walk = (tn: TreeNode) => {
      for (const c of tn.childNodes.values()) walk(c);
      if (tn !== this.root) this.setOpen(tn, false);
    };
    walk(this.root);
  }

  /** Finds keys and primitive values containing `query` (case-insensitive), up to MAX_MATCHES. */
  runSearch(query: string): number {
    this.lastQuery = query;
    for (const m of this.marked) m.classList.remove('jt-match', 'jt-current');
    this.marked = [];
    this.matches = [];
    this.current = -1;
    const q = query.trim().toLowerCase();
    if (!q || !this.root) {
      this.status.textContent = '';
      return 0;
    }
    let visited = 0;
    let capped = false;
    // Iterative, so deep documents cannot overflow the stack.
    const stack: { value: unknown; path: Path }[] = [{ value: this.root.value, path: [] }];
    while (stack.length) {
      const { value, path } = stack.pop() as { value: unknown; path: Path };
      if (++visited > MAX_VISITED || this.matches.length >= MAX_MATCHES) {
        capped = true;
        break;
      }
      if (isContainer(value)) {
        const entries = entriesOf(value);
        for (let i = entries.length - 1; i >= 0; i--) {
          const [k, v] = entries[i];
          const childPath = [...path, k];
          if (typeof k === 'string' && k.toLowerCase().includes(q)) this.matches.push(childPath);
          stack.push({ value: v, path: childPath });
        }
      } else if (path.length && (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') && String(value).toLowerCase().includes(q)) {
        const last = this.matches[this.matches.length - 1];
        if (!last || last.join('\u0000') !== path.join('\u0000')) this.matches.push(path);
      }
    }
    this.status.textContent = this.matches.length
      ? `${formatCount(this.matches.length)}${capped ? '+' : ''} match${this.matches.length === 1 ? '' : 'es'}`
      : 'No match';
    if (this.matches.length) this.step(1);
    return this.matches.length;
  }

  private step(delta: number): void {
    if (!this.matches.length) return;
    this.current = (this.current + delta + this.matches.length) % this.matches.length;
    const el = this.reveal(this.matches[this.current]);
    for (const m of this.marked) m.classList.remove('jt-current');
    if (el) {
      el.classList.add('jt-match', 'jt-current');
      this.marked.push(el);
      el.scrollIntoView({ block: 'center' });
    }
    this.status.textContent = `${formatCount(this.current + 1)} of ${formatCount(this.matches.length)}`;
  }

  /** Opens every node on `path` (rendering chunks as needed) and returns the line of its end. */
  private reveal(path: Path): HTMLElement | undefined {
    let tn = this.root;
    if (!tn) return undefined;
    for (const key of path) {
      this.setOpen(tn, true);
      if (!tn.childNodes.has(key) && isContainer(tn.value)) {
        const index = Array.isArray(tn.value) ? Number(key) : Object.keys(tn.value).indexOf(String(key));
        this.renderMore(tn, index + 1);
      }
      const next = tn.childNodes.get(key);
      if (!next) return undefined;
      tn = next;
    }
    return tn.el.querySelector<HTMLElement>(':scope > .jt-line') ?? undefined;
  }
}
