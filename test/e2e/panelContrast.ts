// Contrast of every status colour the results panel uses, measured in the page (real theme variables,
// real stylesheet): each status class is rendered as text in the place it appears (the page, the error
// panel, the selected row of the pages table, a notice, a code block, a note), then its computed colour
// is compared with the background actually behind it (ancestors' backgrounds composed, alpha included).
// Shared by test/e2e/resultsPanel.test.ts (VS Code's own themes) and the standalone page tests.

/** One measured colour. */
export interface ContrastReading {
  /** "error panel: .status.client-error". */
  name: string;
  color: string;
  background: string;
  ratio: number;
}

/**
 * Runs in the panel page (pass it to `evaluate`): probes every status class in every context, returns
 * the readings and removes the probes. Self-contained, because Playwright sends only its source.
 */
export function measurePanelContrast(): ContrastReading[] {
  const canvas = document.createElement('canvas');
  canvas.width = 1;
  canvas.height = 1;
  const ctx = canvas.getContext('2d', { willReadFrequently: true }) as CanvasRenderingContext2D;
  // Any CSS colour (rgb(), color(srgb …) from color-mix, names) to RGBA 0..255, through the canvas.
  const rgba = (css: string): [number, number, number, number] => {
    ctx.clearRect(0, 0, 1, 1);
    ctx.fillStyle = '#000000';
    ctx.fillStyle = css;
    ctx.fillRect(0, 0, 1, 1);
    const d = ctx.getImageData(0, 0, 1, 1).data;
    return [d[0], d[1], d[2], d[3] / 255];
  };
  const over = (top: [number, number, number, number], below: [number, number, number]): [number, number, number] =>
    [0, 1, 2].map((i) => top[i] * top[3] + below[i] * (1 - top[3])) as [number, number, number];
  const luminance = ([r, g, b]: [number, number, number]) => {
    const lin = (v: number) => {
      const c = v / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  };
  const backgroundOf = (el: Element): [number, number, number] => {
    const layers: [number, number, number, number][] = [];
    for (let at: Element | null = el; at; at = at.parentElement) {
      const bg = rgba(getComputedStyle(at).backgroundColor);
      if (bg[3] > 0) layers.push(bg);
      if (bg[3] >= 1) break;
    }
    // Below everything VS Code paints the editor background; a page without one is white.
    let result: [number, number, number] = [255, 255, 255];
    for (const layer of layers.reverse()) result = over(layer, result);
    return result;
  };

  const app = document.getElementById('app') ?? document.body;
  const made: Element[] = [];
  const add = <T extends Element>(parent: Element, el: T): T => {
    parent.appendChild(el);
    if (parent === app || parent === document.body) made.push(el);
    return el;
  };
  const element = (tag: string, className: string): HTMLElement => {
    const el = document.createElement(tag);
    if (className) el.className = className;
    return el;
  };
  // The places status text appears, each a container the probes go into.
  // `only`: the probes that can appear there (all when absent).
  const contexts: { name: string; container: HTMLElement; only?: string[] }[] = [];
  contexts.push({ name: 'page', container: add(app, element('div', 'section-body')) });
  contexts.push({ name: 'error panel', container: add(app, element('section', 'error-panel')) });
  const pages = add(app, element('table', 'pages'));
  const row = pages.appendChild(document.createElement('tbody')).appendChild(element('tr', 'selected'));
  contexts.push({
    name: 'selected page row',
    container: row.appendChild(document.createElement('td')),
    only: ['text', '.status.ok', '.status.redirect', '.status.client-error', '.status.server-error'],
  });
  const notices = add(document.body, element('div', 'notices'));
  contexts.push({ name: 'notice', container: notices.appendChild(element('div', 'notice info')), only: ['text'] });
  contexts.push({ name: 'code block', container: add(app, element('pre', 'code')), only: ['text'] });
  contexts.push({ name: 'note', container: add(app, element('p', 'note')), only: ['text', '.muted'] });

  const probes: { label: string; make: () => HTMLElement }[] = [
    { label: 'text', make: () => element('span', '') },
    { label: '.muted', make: () => element('span', 'muted') },
    { label: '.ok-text', make: () => element('span', 'ok-text') },
    { label: '.error-text', make: () => element('span', 'error-text') },
    { label: '.expired', make: () => element('span', 'expired') },
    { label: '.status.ok', make: () => element('span', 'status ok') },
    { label: '.status.redirect', make: () => element('span', 'status redirect') },
    { label: '.status.client-error', make: () => element('span', 'status client-error') },
    { label: '.status.server-error', make: () => element('span', 'status server-error') },
    { label: '.severity.error', make: () => element('span', 'severity error') },
    { label: '.severity.warning', make: () => element('span', 'severity warning') },
    { label: '.severity.info', make: () => element('span', 'severity info') },
  ];
  const readings: ContrastReading[] = [];
  const read = (name: string, el: HTMLElement) => {
    el.textContent = 'Sample 200 OK';
    const fg = rgba(getComputedStyle(el).color);
    const bg = backgroundOf(el);
    const shown = over(fg, bg);
    const [hi, lo] = [luminance(shown), luminance(bg)].sort((a, b) => b - a);
    readings.push({
      name,
      color: `rgb(${shown.map(Math.round).join(', ')})`,
      background: `rgb(${bg.map(Math.round).join(', ')})`,
      ratio: (hi + 0.05) / (lo + 0.05),
    });
  };
  for (const { name, container, only } of contexts) {
    for (const probe of probes.filter((p) => !only || only.includes(p.label)))
      read(`${name}: ${probe.label}`, container.appendChild(probe.make()));
  }
  // Labels of the key-value lists, section headings, and the diff marks of Compare Tokens.
  const kv = add(app, element('dl', 'kv'));
  read('page: dl.kv dt', kv.appendChild(document.createElement('dt')));
  read('page: h4', add(app, document.createElement('h4')));
  const diff = add(app, element('table', 'diff'));
  read(
    'page: table.diff .diff-mark',
    diff
      .appendChild(document.createElement('tbody'))
      .appendChild(document.createElement('tr'))
      .appendChild(document.createElement('th'))
      .appendChild(element('div', 'diff-mark')),
  );
  // A cell of every state of the Fetch Hours heatmap: a tint mixed into the background behind the text.
  const heatRow = add(app, element('table', 'heat-grid'))
    .appendChild(document.createElement('tbody'))
    .appendChild(document.createElement('tr'));
  for (const state of ['items', 'empty', 'not_found', 'pending', 'failed', 'fetching', 'not_fetched']) {
    const cell = heatRow.appendChild(element('td', 'heat-cell')).appendChild(element('button', `heat heat-${state}`));
    read(`heatmap cell: .heat-${state}`, cell);
    // The same text over a line of the cell's hatching (or dots), where it has one: the stripe colour composed over the tint.
    if (getComputedStyle(cell).backgroundImage !== 'none') {
      const stripe = rgba(
        (() => {
          const probe = cell.appendChild(element('i', ''));
          probe.style.color = 'var(--heat-stripe)';
          const color = getComputedStyle(probe).color;
          probe.remove();
          return color;
        })(),
      );
      const fg = over(rgba(getComputedStyle(cell).color), backgroundOf(cell));
      const bg = over(stripe, backgroundOf(cell));
      const [hi, lo] = [luminance(fg), luminance(bg)].sort((a, b) => b - a);
      readings.push({
        name: `heatmap cell: .heat-${state} text on its hatching`,
        color: `rgb(${fg.map(Math.round).join(', ')})`,
        background: `rgb(${bg.map(Math.round).join(', ')})`,
        ratio: (hi + 0.05) / (lo + 0.05),
      });
    }
  }
  for (const el of made) el.remove();
  return readings;
}

/** How one heatmap state looks, apart from its hue: the luminance of its fill, its pattern and its border. */
export interface HeatmapStateLook {
  state: string;
  /** WCAG relative luminance of the fill over the page. */
  luminance: number;
  pattern: string;
  border: string;
}

/**
 * Runs in the panel page (pass it to `evaluate`): how every heatmap state's legend swatch looks. Self-contained.
 */
export function measureHeatmapStates(): HeatmapStateLook[] {
  const canvas = document.createElement('canvas');
  canvas.width = 1;
  canvas.height = 1;
  const ctx = canvas.getContext('2d', { willReadFrequently: true }) as CanvasRenderingContext2D;
  const rgba = (css: string): [number, number, number, number] => {
    ctx.clearRect(0, 0, 1, 1);
    ctx.fillStyle = '#000000';
    ctx.fillStyle = css;
    ctx.fillRect(0, 0, 1, 1);
    const d = ctx.getImageData(0, 0, 1, 1).data;
    return [d[0], d[1], d[2], d[3] / 255];
  };
  const lin = (v: number) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const page = rgba(getComputedStyle(document.body).backgroundColor);
  const list = (document.getElementById('app') ?? document.body).appendChild(document.createElement('ul'));
  list.className = 'heat-legend';
  const looks = ['items', 'empty', 'not_found', 'pending', 'failed', 'fetching', 'not_fetched'].map((state) => {
    const swatch = list.appendChild(document.createElement('li')).appendChild(document.createElement('span'));
    swatch.className = `heat-swatch heat-${state}`;
    const style = getComputedStyle(swatch);
    const fill = rgba(style.backgroundColor);
    const shown = [0, 1, 2].map((i) => fill[i] * fill[3] + (page[3] ? page[i] : 255) * (1 - fill[3]));
    return {
      state,
      luminance: 0.2126 * lin(shown[0]) + 0.7152 * lin(shown[1]) + 0.0722 * lin(shown[2]),
      // The pattern's shape (its gradients), not its colour.
      pattern: style.backgroundImage.replace(/(rgba?|color)\([^)]*\)/g, 'c'),
      border: `${style.borderTopStyle} ${style.borderTopWidth}`,
    };
  });
  list.remove();
  return looks;
}

/**
 * Pairs of heatmap states that look alike without hue (as for colour-blind eyes, or in greyscale): the same
 * pattern and border, and fills whose luminance differs by less than 1.3:1.
 */
export function heatmapStatesAlike(looks: readonly HeatmapStateLook[]): string[] {
  const alike: string[] = [];
  looks.forEach((a, i) => {
    for (const b of looks.slice(i + 1)) {
      const [hi, lo] = [a.luminance, b.luminance].sort((x, y) => y - x);
      if (a.pattern === b.pattern && a.border === b.border && (hi + 0.05) / (lo + 0.05) < 1.3)
        alike.push(
          `${a.state} and ${b.state} (${a.pattern}, ${a.border}, ${((hi + 0.05) / (lo + 0.05)).toFixed(2)}:1)`,
        );
    }
  });
  return alike;
}
