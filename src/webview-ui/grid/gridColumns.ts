// The results table's column widths in pixels: measured from the cell font (monospace, so one width per
// character), and the header edge that resizes a column by pointer drag and by keyboard (a focusable
// ARIA separator: ArrowLeft and ArrowRight, Shift for bigger steps).
import * as l10n from '@vscode/l10n';
import { middleEllipsis, widthAfterKey } from '../../shared/gridLayout';
import { h } from '../dom';

/** Horizontal padding of a cell (8 px each side) plus a pixel of slack. */
export const CELL_PADDING = 18;
/** No column gets narrower than this by resizing. */
export const MIN_COLUMN_WIDTH = 40;

let measured: number | undefined;

/** The width of one character of the cell font (the editor's monospace font at the panel's size). */
export function charWidth(): number {
  if (measured) return measured;
  const root = getComputedStyle(document.documentElement);
  const family = root.getPropertyValue('--vscode-editor-font-family').trim() || 'ui-monospace, monospace';
  const size = getComputedStyle(document.body).fontSize || '13px';
  const context = document.createElement('canvas').getContext('2d');
  let width = 0;
  if (context) {
    context.font = `${size} ${family}`;
    width = context.measureText('0123456789abcdef').width / 16;
  }
  measured = width > 0 ? width : 7.8;
  return measured;
}

/** A width in pixels for `chars` characters of cell text. */
export function widthForChars(chars: number): number {
  return Math.ceil(chars * charWidth()) + CELL_PADDING;
}

/** How many characters of cell text fit in `width` pixels. */
export function charsInWidth(width: number): number {
  return Math.max(1, Math.floor((width - CELL_PADDING) / charWidth()));
}

/**
 * The resize edge of a column header: drag it, or focus it and press ArrowLeft/ArrowRight. `width()`
 * reads the column's width now; `resize(width)` applies a new one.
 */
export function resizeHandle(label: string, width: () => number, resize: (width: number) => void): HTMLElement {
  const handle = h('div', {
    class: 'vt-resize',
    role: 'separator',
    tabindex: 0,
    'aria-orientation': 'vertical',
    'aria-label': l10n.t('Resize column {0}', label),
    title: l10n.t('Drag, or press Left and Right arrows, to resize {0}', label),
    'aria-valuemin': MIN_COLUMN_WIDTH,
  });
  const show = (value: number): void => {
    handle.setAttribute('aria-valuenow', String(Math.round(value)));
    handle.setAttribute('aria-valuetext', l10n.t('{0} pixels', Math.round(value)));
  };
  show(width());
  handle.addEventListener('keydown', (event) => {
    const next = widthAfterKey(event, width(), MIN_COLUMN_WIDTH);
    if (next === undefined) return;
    event.preventDefault();
    event.stopPropagation();
    resize(next);
    show(next);
  });
  handle.addEventListener('pointerdown', (event) => {
    event.preventDefault();
    const startX = event.clientX;
    const startWidth = width();
    handle.setPointerCapture(event.pointerId);
    const move = (e: PointerEvent): void => {
      const next = Math.max(MIN_COLUMN_WIDTH, startWidth + e.clientX - startX);
      resize(next);
      show(next);
    };
    const end = (): void => {
      handle.removeEventListener('pointermove', move);
      handle.removeEventListener('pointerup', end);
      handle.removeEventListener('pointercancel', end);
    };
    handle.addEventListener('pointermove', move);
    handle.addEventListener('pointerup', end);
    handle.addEventListener('pointercancel', end);
  });
  // A click on the edge is no sort.
  handle.addEventListener('click', (event) => event.stopPropagation());
  return handle;
}

/**
 * Shows `text` in `cell` within `chars` characters: an id is shortened in the middle when longer (its
 * distinguishing end stays), whole in the tooltip and the accessible name; other text ends in "…" (CSS).
 */
export function fitText(cell: HTMLElement, text: string, chars: number, id: boolean, alwaysTitle: boolean): void {
  const shown = id ? middleEllipsis(text, chars) : text;
  cell.textContent = shown;
  if (shown !== text) {
    cell.title = text;
    cell.setAttribute('aria-label', text);
    cell.setAttribute('data-full', text);
  } else {
    if (alwaysTitle || text.length > chars) cell.title = text;
    else cell.removeAttribute('title');
    cell.removeAttribute('aria-label');
    cell.removeAttribute('data-full');
  }
}
