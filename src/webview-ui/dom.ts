// The only way the results panel builds DOM: elements, attributes and text nodes. Text is always
// set as text (never parsed as HTML), and attributes that could run code or load something
// (`on*`, `href`, `src`, `style`…) are refused, so response data cannot become markup.
import * as l10n from '@vscode/l10n';
import { urlBreakPieces } from './urlBreaks';
import { localDecimal } from '../shared/l10n';

/** Attributes that may carry response data; everything else is refused. */
const SAFE_ATTRIBUTE =
  /^(id|scope|class|title|role|tabindex|colspan|data-[a-z0-9-]+|aria-[a-z]+|slot|heading|description|open|secondary|disabled|placeholder|value|label|selected|selected-index|type|for|name|width|height|appearance|translate)$/;

export type Child = Node | string | number | null | undefined | false;

/** `<tag attrs…>children</tag>`, with strings and numbers as text nodes. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Record<string, string | number | boolean | undefined> | null,
  ...children: Child[]
): HTMLElementTagNameMap[K];
export function h(
  tag: string,
  attrs?: Record<string, string | number | boolean | undefined> | null,
  ...children: Child[]
): HTMLElement;
export function h(
  tag: string,
  attrs?: Record<string, string | number | boolean | undefined> | null,
  ...children: Child[]
): HTMLElement {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [name, value] of Object.entries(attrs)) {
      if (value === undefined || value === false) continue;
      if (!SAFE_ATTRIBUTE.test(name)) throw new Error(`The attribute "${name}" is not allowed in the results panel.`);
      el.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(el, ...children);
  return el;
}

/** Appends children; strings become text nodes. */
export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(
      typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child,
    );
  }
}

/** Characters beyond which one piece of a URL may break inside (about 300 px of monospace). */
const LONG_URL_PIECE = 40;

/**
 * A URL as text that wraps only after "/", "?" and "&" (a <wbr> element after each, never HTML
 * parsing), with `.url` styles that keep every other character together.
 */
export function urlText(url: string, attrs: Record<string, string | number | boolean | undefined> = {}): HTMLElement {
  const el = h('span', { ...attrs, class: attrs.class ? `url ${String(attrs.class)}` : 'url' });
  const pieces = urlBreakPieces(url);
  // Each piece is unbreakable (a hyphen or a dot inside it is no break either); a piece longer than a
  // narrow line may still break anywhere rather than push the panel sideways.
  pieces.forEach((piece, i) => {
    el.appendChild(h('span', { class: piece.length > LONG_URL_PIECE ? 'url-piece long' : 'url-piece' }, piece));
    if (i < pieces.length - 1) el.appendChild(document.createElement('wbr'));
  });
  return el;
}

/**
 * The element inside `el` that has the keyboard focus now, if any. The panel's document keeps its `activeElement`
 * after the user moves to the workbench (a quick pick, an editor), and focusing an element then would pull the focus
 * back into the panel and close that quick pick: re-renders restore the focus only to what this returns.
 */
export function focusedIn(el: Element): HTMLElement | undefined {
  const active = document.activeElement;
  return document.hasFocus() && active instanceof HTMLElement && el.contains(active) ? active : undefined;
}

/** Removes every child of `el`. */
export function clear(el: Element): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

/** A vscode-elements button with a click handler (registered with addEventListener, never inline). */
export function button(
  label: string,
  onClick: () => void,
  attrs: Record<string, string | number | boolean | undefined> = {},
): HTMLElement {
  const el = h('vscode-button', attrs, label);
  el.addEventListener('click', () => {
    if (!el.hasAttribute('disabled')) onClick();
  });
  return el;
}

/** `12 ms`, `1.24 s`. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return '–';
  return ms < 1000 ? l10n.t('{0} ms', Math.round(ms)) : l10n.t('{0} s', localDecimal(ms / 1000, 2));
}

/** `4 min 05 s`, `59 s`, `1 h 02 min` for a span of seconds (sign ignored). */
export function formatSpan(seconds: number): string {
  const s = Math.floor(Math.abs(seconds));
  if (s < 60) return l10n.t('{0} s', s);
  if (s < 3600) return l10n.t('{0} min {1} s', Math.floor(s / 60), String(s % 60).padStart(2, '0'));
  if (s < 86400)
    return l10n.t('{0} h {1} min', Math.floor(s / 3600), String(Math.floor((s % 3600) / 60)).padStart(2, '0'));
  return l10n.t('{0} d {1} h', Math.floor(s / 86400), Math.floor((s % 86400) / 3600));
}

/** Data shown as it came (an id, a keyword, a media type): marked `translate="no"`, as the standard asks. */
export function dataText(text: string): HTMLElement {
  return h('span', { translate: 'no' }, text);
}

/**
 * A translated sentence with nodes in its `{0}`, `{1}` places, for sentences that hold data: call it as
 * `fill(l10n.t('Endpoint {0}', '{0}'), dataText(id))`, so that the translation decides where the data goes.
 */
export function fill(template: string, ...parts: Child[]): Child[] {
  return template
    .split(/(\{\d+\})/)
    .map((piece) => {
      const m = /^\{(\d+)\}$/.exec(piece);
      return m ? (parts[Number(m[1])] ?? piece) : piece;
    })
    .filter((piece) => piece !== '');
}

/**
 * Calls `draw(width)` (whole pixels) at the next animation frame after `element` changes width, once per frame and
 * never for a width already drawn; `schedule(true)` draws again at the same width (new data).
 */
export class RedrawOnResize {
  private frame = 0;
  private drawnWidth = 0;

  constructor(
    private readonly element: HTMLElement,
    private readonly draw: (width: number) => void,
  ) {
    new ResizeObserver(() => this.schedule()).observe(element);
  }

  schedule(again = false): void {
    if (again) this.drawnWidth = 0;
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      const width = Math.floor(this.element.clientWidth);
      if (width <= 0 || width === this.drawnWidth) return;
      this.drawnWidth = width;
      this.draw(width);
    });
  }
}
