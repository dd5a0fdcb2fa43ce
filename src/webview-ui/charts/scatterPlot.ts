// Positions on a <canvas> (vehicles and events coloured by state, trips' start and end points, telemetry
// points, stops), without map tiles: nothing is fetched, so it
// works offline. Longitude is scaled by cos(latitude) so a city keeps its shape. The canvas reads its
// colours from the theme when it draws, so it redraws when VS Code switches the theme (the body's
// vscode-light / vscode-dark / vscode-high-contrast class); its text alternative is a summary of what
// it shows (counts per state and the area), and the note and legend beside it say the same in words.
import * as l10n from '@vscode/l10n';
import type { DataTableView, PositionColumn } from '../../shared/dataTable';
import { groupColumn } from '../../shared/dataTable';
import { formatCount, nounText } from '../../shared/format';
import { isSingular, localDecimal } from '../../shared/l10n';
import { clear, h } from '../dom';
import { stateClass } from '../grid/gridRows';

/** Colours of the position columns when a row has several (a trip's start and end). */
const POSITION_COLOURS = [
  '--vscode-charts-blue',
  '--vscode-charts-orange',
  '--vscode-charts-purple',
  '--vscode-charts-green',
];
/** Legend classes of the same, with the same colours (results.css). */
const POSITION_CLASSES = ['pos-0', 'pos-1', 'pos-2', 'pos-3'];

/** One colour group of points: a state, or a position column. */
interface PointGroup {
  name: string;
  colour: string;
  legendClass: string;
  points: { column: PositionColumn; row: number }[];
}

/** Theme colours per state; unknown states use the foreground colour. */
const STATE_COLOURS: Record<string, string> = {
  available: '--vscode-charts-green',
  on_trip: '--vscode-charts-blue',
  reserved: '--vscode-charts-purple',
  stopped: '--vscode-charts-yellow',
  non_operational: '--vscode-charts-orange',
  non_contactable: '--vscode-charts-red',
  missing: '--vscode-charts-red',
  elsewhere: '--vscode-descriptionForeground',
  removed: '--vscode-disabledForeground',
};

function themeColour(variable: string, fallback: string): string {
  return getComputedStyle(document.body).getPropertyValue(variable).trim() || fallback;
}

export class ScatterPlot {
  readonly element: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly legend: HTMLElement;
  private readonly note: HTMLElement;
  private cols: DataTableView | undefined;
  private rows: Uint32Array = new Uint32Array(0);
  private frame = 0;

  constructor() {
    this.canvas = h('canvas', { 'data-testid': 'scatter-plot', role: 'img', 'aria-label': l10n.t('Positions') });
    this.legend = h('div', { class: 'legend', 'data-testid': 'plot-legend' });
    this.note = h('p', { class: 'muted', 'data-testid': 'plot-note' });
    this.element = h('div', { class: 'plot-wrap' }, this.note, this.canvas, this.legend);
    new ResizeObserver(() => this.schedule()).observe(this.element);
    new MutationObserver(() => this.schedule()).observe(document.body, {
      attributes: true,
      attributeFilter: ['class', 'data-vscode-theme-kind', 'data-vscode-theme-id'],
    });
  }

  /** The rows to plot (the table's filtered rows), by index into `cols`. */
  setData(cols: DataTableView, rows: Uint32Array): void {
    this.cols = cols;
    this.rows = rows;
    this.schedule();
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  private draw(): void {
    const cols = this.cols;
    const width = this.element.clientWidth;
    if (!cols || width === 0) return;
    const height = Math.max(240, Math.min(560, Math.round(width * 0.6)));
    const ratio = window.devicePixelRatio || 1;
    this.canvas.width = Math.round(width * ratio);
    this.canvas.height = Math.round(height * ratio);
    this.canvas.style.width = `${width}px`;
    this.canvas.style.height = `${height}px`;
    const ctx = this.canvas.getContext('2d');
    if (!ctx) return;
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);

    const positions = cols.columns.filter((c): c is PositionColumn => c.type === 'position');
    const one = nounText(cols.noun[0]);
    const many = nounText(cols.noun[1]);
    let minLat = Infinity,
      maxLat = -Infinity,
      minLng = Infinity,
      maxLng = -Infinity,
      placed = 0;
    for (const column of positions) {
      for (const r of this.rows) {
        const lat = column.lat[r];
        const lng = column.lng[r];
        if (Number.isNaN(lat) || Number.isNaN(lng)) continue;
        placed++;
        if (lat < minLat) minLat = lat;
        if (lat > maxLat) maxLat = lat;
        if (lng < minLng) minLng = lng;
        if (lng > maxLng) maxLng = lng;
      }
    }
    clear(this.legend);
    if (placed === 0) {
      const vehicles = cols.resource === 'vehicles';
      this.note.textContent = !positions.length
        ? l10n.t('{0} have no positions.', `${many.charAt(0).toUpperCase()}${many.slice(1)}`)
        : this.rows.length
          ? vehicles
            ? l10n.t(
                'These vehicles have no position. MDS /vehicles carries none; list the vehicle status (/vehicles/status) or the MaaS listing for positions.',
              )
            : l10n.t('These {0} have no position.', many)
          : l10n.t('No {0} to plot.', many);
      this.canvas.hidden = true;
      this.canvas.setAttribute('aria-label', this.note.textContent ?? '');
      return;
    }
    this.canvas.hidden = false;
    const counted = `${formatCount(this.rows.length)} ${isSingular(this.rows.length) ? one : many}`;
    const what =
      positions.length > 1
        ? l10n.t(
            '{0} positions of {1} ({2})',
            formatCount(placed),
            counted,
            positions.map((p) => p.label.toLowerCase()).join(l10n.t(' and ')),
          )
        : l10n.t('{0} of {1} have a position', formatCount(placed), counted);
    this.note.textContent = l10n.t(
      '{0}. No map is drawn: positions only, {1}…{2} lat, {3}…{4} lng.',
      what,
      localDecimal(minLat, 4),
      localDecimal(maxLat, 4),
      localDecimal(minLng, 4),
      localDecimal(maxLng, 4),
    );

    const pad = 16;
    const midLat = ((minLat + maxLat) / 2) * (Math.PI / 180);
    const kx = Math.max(Math.cos(midLat), 0.01);
    const spanX = Math.max((maxLng - minLng) * kx, 1e-6);
    const spanY = Math.max(maxLat - minLat, 1e-6);
    const scale = Math.min((width - 2 * pad) / spanX, (height - 2 * pad) / spanY);
    const offX = (width - spanX * scale) / 2;
    const offY = (height - spanY * scale) / 2;

    const gridColour = themeColour('--vscode-editorWidget-border', '#8884');
    ctx.strokeStyle = gridColour;
    ctx.globalAlpha = 0.5;
    ctx.lineWidth = 1;
    ctx.strokeRect(offX - 4.5, offY - 4.5, spanX * scale + 9, spanY * scale + 9);
    ctx.globalAlpha = 1;

    const foreground = themeColour('--vscode-foreground', '#888');
    const groups = this.groups(cols, positions, foreground);
    const size = placed > 20_000 ? 2 : placed > 2000 ? 3 : 4;
    // Largest group first, so that rare states (missing, non_contactable) stay visible on top.
    groups.sort((a, b) => b.points.length - a.points.length);
    for (const group of groups) {
      ctx.fillStyle = group.colour;
      for (const { column, row } of group.points) {
        const x = offX + (column.lng[row] - minLng) * kx * scale;
        const y = offY + (maxLat - column.lat[row]) * scale;
        ctx.fillRect(x - size / 2, y - size / 2, size, size);
      }
    }
    const parts: string[] = [];
    for (const group of groups) {
      parts.push(`${group.name} ${formatCount(group.points.length)}`);
      this.legend.appendChild(
        h(
          'span',
          { class: 'legend-item' },
          h('span', { class: `dot ${group.legendClass}`, 'aria-hidden': 'true' }),
          `${group.name} ${formatCount(group.points.length)}`,
        ),
      );
    }
    const plotOf =
      groups.length > 1
        ? positions.length > 1
          ? l10n.t('Plot of {0} {1} positions by position', formatCount(placed), one)
          : l10n.t('Plot of {0} {1} positions by state', formatCount(placed), one)
        : l10n.t('Plot of {0} {1} positions', formatCount(placed), one);
    this.canvas.setAttribute(
      'aria-label',
      l10n.t(
        '{0}: {1}. Latitude {2} to {3}, longitude {4} to {5}.',
        plotOf,
        parts.join(', '),
        localDecimal(minLat, 4),
        localDecimal(maxLat, 4),
        localDecimal(minLng, 4),
        localDecimal(maxLng, 4),
      ),
    );
    this.canvas.setAttribute('data-theme', document.body.className);
    this.canvas.setAttribute('data-points', String(placed));
  }

  /** Points grouped for colour: by position column when a row has several, else by vehicle state when known, else one group. */
  private groups(cols: DataTableView, positions: PositionColumn[], foreground: string): PointGroup[] {
    const states = groupColumn(cols);
    if (positions.length > 1 || !states?.states) {
      return positions
        .map((column, i) => {
          const variable = POSITION_COLOURS[i % POSITION_COLOURS.length];
          const points: PointGroup['points'] = [];
          for (const row of this.rows)
            if (!Number.isNaN(column.lat[row]) && !Number.isNaN(column.lng[row])) points.push({ column, row });
          return positions.length > 1
            ? {
                name: column.label.toLowerCase(),
                colour: themeColour(variable, foreground),
                legendClass: POSITION_CLASSES[i % POSITION_CLASSES.length],
                points,
              }
            : { name: cols.noun[1], colour: foreground, legendClass: 'state-none', points };
        })
        .filter((g) => g.points.length);
    }
    const column = positions[0];
    const byCode = new Map<number, PointGroup>();
    for (const row of this.rows) {
      if (Number.isNaN(column.lat[row]) || Number.isNaN(column.lng[row])) continue;
      const code = states.codes[row];
      let group = byCode.get(code);
      if (!group) {
        const name = states.names[code] ?? '';
        const variable = STATE_COLOURS[name];
        group = {
          name: name || l10n.t('no state'),
          colour: variable ? themeColour(variable, foreground) : foreground,
          legendClass: stateClass(name),
          points: [],
        };
        byCode.set(code, group);
      }
      group.points.push({ column, row });
    }
    return [...byCode.values()];
  }
}
