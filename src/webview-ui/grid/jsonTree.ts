// A collapsible JSON tree that builds nodes only when they are opened, and long arrays in chunks,
// so a 50 MB body opens at once. Search walks the value (not the DOM), then opens the paths to the
// matches. Keys and values are set as text: a string holding markup shows as that string.
// Keyboard: the WAI-ARIA tree pattern (arrows, Home/End, Enter/Space) with a roving tabindex, so the
// whole tree is one Tab stop; "Show more" rows are tree items too. The rows are built by jsonTreeNodes.ts; what
// is read from the value (search, JSON Pointers) is in jsonValue.ts.
import * as l10n from '@vscode/l10n';
import { formatCount } from '../../shared/format';
import { isSingular } from '../../shared/l10n';
import { button, clear, h } from '../dom';
import { CHUNK, moreRow, treeNode } from './jsonTreeNodes';
import type { TreeNode } from './jsonTreeNodes';
import { entriesOf, findMatches, isContainer, pointerPath, sizeOf } from './jsonValue';
import type { Path } from './jsonValue';

export class JsonTree {
  readonly element: HTMLElement;
  private readonly host: HTMLElement;
  private readonly status: HTMLElement;
  private readonly search: HTMLElement & { value: string };
  private root: TreeNode | undefined;
  private matches: Path[] = [];
  private current = -1;
  private marked: HTMLElement[] = [];
  /** The tree item that holds the tree's one tabindex=0. */
  private active: HTMLElement | undefined;
  private readonly nodes = new WeakMap<HTMLElement, TreeNode>();
  /** "Show more" rows: what they load. */
  private readonly moreRows = new WeakMap<HTMLElement, TreeNode>();

  constructor(private readonly announce: (text: string) => void = () => {}) {
    this.search = h('vscode-textfield', {
      placeholder: l10n.t('Search keys and values (Enter)'),
      'data-testid': 'json-search',
      'aria-label': l10n.t('Search the JSON'),
    });
    this.search.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        if (this.matches.length && this.search.value === this.lastQuery) this.step(e.shiftKey ? -1 : 1);
        else this.runSearch(this.search.value);
      }
    });
    this.status = h('span', { class: 'muted', 'data-testid': 'json-search-status' });
    const prev = button(l10n.t('Previous'), () => this.step(-1), { secondary: true });
    const next = button(l10n.t('Next'), () => this.step(1), { secondary: true });
    const collapse = button(l10n.t('Collapse all'), () => this.collapseAll(), { secondary: true });
    this.host = h('div', { class: 'jt', role: 'tree', 'aria-label': 'JSON body', 'data-testid': 'json-tree' });
    this.host.addEventListener('keydown', (e) => this.onKey(e));
    this.host.addEventListener('focusin', (e) => {
      const item = (e.target as HTMLElement).closest<HTMLElement>('[role="treeitem"]');
      if (item && this.host.contains(item)) this.setActive(item, false);
    });
    this.element = h(
      'div',
      { class: 'jt-wrap' },
      h('div', { class: 'toolbar' }, this.search, prev, next, collapse, this.status),
      this.host,
    );
  }

  private lastQuery = '';

  setValue(value: unknown): void {
    clear(this.host);
    this.matches = [];
    this.current = -1;
    this.status.textContent = '';
    this.active = undefined;
    this.root = this.node('', value, 0, 1, 1, true);
    this.host.appendChild(this.root.el);
    this.setActive(this.root.el, false);
    if (this.root.toggle) this.setOpen(this.root, true);
    // Open the first level of a small document (a listing's top-level keys) to save a click.
    for (const child of this.root.childNodes.values()) {
      if (isContainer(child.value) && sizeOf(child.value) <= 50 && !Array.isArray(this.root.value))
        this.setOpen(child, false);
    }
  }

  private node(
    key: string | number,
    value: unknown,
    depth: number,
    position: number,
    setSize: number,
    isRoot = false,
  ): TreeNode {
    const { tn, line } = treeNode(key, value, depth, position, setSize, isRoot);
    const el = tn.el;
    this.nodes.set(el, tn);
    if (tn.toggle) {
      line.addEventListener('click', () => {
        this.setOpen(tn, !tn.open);
        this.setActive(el, true);
      });
    } else {
      line.addEventListener('click', () => this.setActive(el, true));
    }
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
    // A collapsed branch cannot hold the tab stop: it moves up to the branch.
    if (!open && this.active && this.active !== tn.el && tn.el.contains(this.active))
      this.setActive(tn.el, this.host.contains(document.activeElement));
  }

  /** Renders children of `tn` until at least `upTo` exist (a "show more" row follows when some remain). */
  private renderMore(tn: TreeNode, upTo: number): void {
    if (!tn.children || !isContainer(tn.value)) return;
    const depth = tn.depth + 1;
    const entries = entriesOf(tn.value);
    const oldMore = tn.children.querySelector<HTMLElement>(':scope > .jt-more');
    const moreHadFocus = !!oldMore && oldMore === this.active;
    oldMore?.remove();
    const start = tn.rendered;
    const end = Math.min(entries.length, Math.max(upTo, tn.rendered + CHUNK));
    const fragment = document.createDocumentFragment();
    for (let i = tn.rendered; i < end; i++) {
      const [k, v] = entries[i];
      const child = this.node(k, v, depth, i + 1, entries.length);
      tn.childNodes.set(k, child);
      fragment.appendChild(child.el);
    }
    tn.rendered = end;
    tn.children.appendChild(fragment);
    if (end < entries.length) {
      const more = moreRow(depth, end, entries.length);
      more.addEventListener('click', () => this.loadMore(more));
      this.moreRows.set(more, tn);
      tn.children.appendChild(more);
    }
    if (moreHadFocus) {
      const first = tn.childNodes.get(entries[start]?.[0]);
      if (first) this.setActive(first.el, true);
    }
  }

  private loadMore(more: HTMLElement): void {
    const tn = this.moreRows.get(more);
    if (!tn) return;
    if (this.active !== more) this.setActive(more, false);
    this.renderMore(tn, tn.rendered + CHUNK);
  }

  /** Moves the tree's one tab stop to `item` (and the focus, when `focus`). */
  private setActive(item: HTMLElement, focus: boolean): void {
    if (this.active !== item) {
      this.active?.setAttribute('tabindex', '-1');
      item.setAttribute('tabindex', '0');
      this.active = item;
    }
    if (focus) item.focus({ preventScroll: false });
  }

  /** The group of an item's children, when it is open. */
  private openGroup(item: HTMLElement): HTMLElement | undefined {
    const tn = this.nodes.get(item);
    return tn?.open && tn.children && tn.children.firstElementChild ? tn.children : undefined;
  }

  private parentItem(item: HTMLElement): HTMLElement | undefined {
    const parent = item.parentElement?.closest<HTMLElement>('[role="treeitem"]');
    return parent && this.host.contains(parent) ? parent : undefined;
  }

  private lastVisible(item: HTMLElement): HTMLElement {
    let last = item;
    for (let group = this.openGroup(last); group; group = this.openGroup(last))
      last = group.lastElementChild as HTMLElement;
    return last;
  }

  /** The item below `item` on screen (tree order of the open branches), walking the structure, not the whole DOM. */
  private nextVisible(item: HTMLElement): HTMLElement | undefined {
    const group = this.openGroup(item);
    if (group) return group.firstElementChild as HTMLElement;
    for (let at: HTMLElement | undefined = item; at; at = this.parentItem(at)) {
      const sibling = at.nextElementSibling as HTMLElement | null;
      if (sibling) return sibling;
    }
    return undefined;
  }

  private previousVisible(item: HTMLElement): HTMLElement | undefined {
    const sibling = item.previousElementSibling as HTMLElement | null;
    return sibling ? this.lastVisible(sibling) : this.parentItem(item);
  }

  private onKey(e: KeyboardEvent): void {
    const item = (e.target as HTMLElement).closest<HTMLElement>('[role="treeitem"]');
    if (!item || !this.root) return;
    const tn = this.nodes.get(item);
    let target: HTMLElement | undefined;
    switch (e.key) {
      case 'ArrowDown':
        target = this.nextVisible(item);
        break;
      case 'ArrowUp':
        target = this.previousVisible(item);
        break;
      case 'Home':
        target = this.root.el;
        break;
      case 'End':
        target = this.lastVisible(this.root.el);
        break;
      case 'ArrowRight':
        if (tn?.toggle && !tn.open) this.setOpen(tn, true);
        else if (tn?.open) target = this.openGroup(item)?.firstElementChild as HTMLElement | undefined;
        break;
      case 'ArrowLeft':
        if (tn?.open) this.setOpen(tn, false);
        else target = this.parentItem(item);
        break;
      case 'Enter':
      case ' ':
        if (this.moreRows.has(item)) this.loadMore(item);
        else if (tn?.toggle) this.setOpen(tn, !tn.open);
        break;
      default:
        return;
    }
    e.preventDefault();
    if (target) this.setActive(target, true);
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
    const { matches, capped } = findMatches(this.root.value, q);
    this.matches = matches;
    this.status.textContent = this.matches.length
      ? isSingular(this.matches.length)
        ? l10n.t('{0}{1} match', formatCount(this.matches.length), capped ? '+' : '')
        : l10n.t('{0}{1} matches', formatCount(this.matches.length), capped ? '+' : '')
      : l10n.t('No match');
    if (!this.matches.length) this.announce(l10n.t('No match'));
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
      // The match holds the tab stop, so Tab from the search box lands on it.
      const item = el.parentElement;
      if (item) this.setActive(item, false);
    }
    this.status.textContent = l10n.t('{0} of {1}', formatCount(this.current + 1), formatCount(this.matches.length));
    this.announce(l10n.t('Match {0}', this.status.textContent));
  }

  private target: HTMLElement | undefined;

  /**
   * Opens the tree down to a JSON Pointer (RFC 6901), highlights that node and moves the focus to it. A
   * place that does not exist (a missing property) shows its nearest existing parent. False without a value.
   */
  revealPointer(pointer: string): boolean {
    if (!this.root) return false;
    const line =
      this.reveal(pointerPath(this.root.value, pointer)) ??
      this.root.el.querySelector<HTMLElement>(':scope > .jt-line');
    if (!line) return false;
    this.target?.classList.remove('jt-target');
    line.classList.add('jt-target');
    this.target = line;
    const item = line.parentElement;
    if (item) this.setActive(item, true);
    line.scrollIntoView({ block: 'center' });
    // The tree may sit in a tab panel that becomes visible only after this frame (a jump from a finding).
    requestAnimationFrame(() => {
      if (this.target !== line || !item || document.activeElement === item) return;
      item.focus();
      line.scrollIntoView({ block: 'center' });
    });
    this.announce(l10n.t('Showing {0} in the JSON tree', pointer || l10n.t('the whole body')));
    return true;
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
