// SVG elements for the panel's charts and the notebook's, built like dom.ts builds HTML: attributes from a short list (geometry, class,
// ARIA), text as text nodes, never markup and never a style attribute (the page's CSP allows none). Colours come
// from classes in results.css over the theme's --vscode-* variables, so a chart follows a theme change by itself.

const SVG_NS = 'http://www.w3.org/2000/svg';
const SVG_ATTRIBUTE =
  /^(d|x|y|x1|x2|y1|y2|cx|cy|r|width|height|viewBox|points|class|role|focusable|text-anchor|dominant-baseline|data-[a-z0-9-]+|aria-[a-z]+)$/;

/** `<tag attrs…>text</tag>` in the SVG namespace. */
export function svgEl(tag: string, attrs: Record<string, string | number | undefined> = {}, text?: string): SVGElement {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined) continue;
    if (!SVG_ATTRIBUTE.test(name)) throw new Error(`The SVG attribute "${name}" is not allowed in the results panel.`);
    el.setAttribute(name, typeof value === 'number' ? String(Math.round(value * 10) / 10) : value);
  }
  if (text !== undefined) el.textContent = text;
  return el;
}

/** A round upper bound for an axis of values up to `max`: 1, 2 or 5 times a power of ten. */
export function niceMax(max: number): number {
  if (!(max > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (max <= step * power) return step * power;
  return 10 * power;
}
