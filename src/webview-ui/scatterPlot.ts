// Vehicle positions on a <canvas>, coloured by state, without map tiles: nothing is fetched, so it
// works offline. Longitude is scaled by cos(latitude) so a city keeps its shape. The canvas reads its
// colours from the theme when it draws, so it redraws when VS Code switches the theme (the body's
// vscode-light / vscode-dark / vscode-high-contrast class); its text alternative is a summary of what
// it shows (counts per state and the area), and the note and legend beside it say the same in words.
import type { VehicleColumns } from '../shared/protocol';
import { formatCount } from '../shared/format';
import { clear, h } from './dom';
import { stateClass } from './vehicleTable';

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
  private cols: VehicleColumns | undefined;
  private rows: Uint32Array = new Uint32Array(0);
  private frame = 0;

  constructor() {
    this.canvas = h('canvas', { 'data-testid': 'scatter-plot', role: 'img', 'aria-label': 'Vehicle positions coloured by state' });
    this.legend = h('div', { class: 'legend', 'data-testid': 'plot-legend' });
    this.note = h('p', { class: 'muted', 'data-testid': 'plot-note' });
    this.element = h('div', { class: 'plot-wrap' }, this.note, this.canvas, this.legend);
    new ResizeObserver(() => this.schedule()).observe(this.element);
    new MutationObserver(() => this.schedule()).observe(document.body, { attributes: true, attributeFilter: ['class', 'data-vscode-theme-kind', 'data-vscode-theme-id'] });
  }

  /** The rows to plot (the table's filtered rows), by index into `cols`. */
  setData(cols: VehicleColumns, rows: Uint32Array): void {
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

    let minLat = Infinity, maxLat = -Infinity, minLng = Infinity, maxLng = -Infinity, placed = 0;
    for (const r of this.rows) {
      const lat = cols.lat[r];
      const lng = cols.lng[r];
      if (Number.isNaN(lat) || Number.isNaN(lng)) continue;
      placed++;
      if (lat < minLat) minLat = lat;
      if (lat > maxLat) maxLat = lat;
      if (lng < minLng) minLng = lng;
      if (lng > maxLng) maxLng = lng;
    }
    clear(this.legend);
    if (placed === 0) {
      this.note.textContent = this.rows.length
        ? 'These vehicles have no position. MDS /vehicles carries none; list the vehicle status (/vehicles/status) or the MaaS listing for positions.'
        : 'No vehicles to plot.';
      this.canvas.hidden = true;
      this.canvas.setAttribute('aria-label', this.note.textContent ?? '');
      return;
    }
    this.canvas.hidden = false;
    this.note.textContent = `${formatCount(placed)} of ${formatCount(this.rows.length)} vehicles have a position. No map is drawn: positions only, ${minLat.toFixed(4)}…${maxLat.toFixed(4)} lat, ${minLng.toFixed(4)}…${maxLng.toFixed(4)} lng.`;

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

    const counts = new Map<number, number>();
    const byState = new Map<number, number[]>();
    for (const r of this.rows) {
      if (Number.isNaN(cols.lat[r]) || Number.isNaN(cols.lng[r])) continue;
      const code = cols.stateCode[r];
      let list = byState.get(code);
      if (!list) byState.set(code, (list = []));
      list.push(r);
      counts.set(code, (counts.get(code) ?? 0) + 1);
    }
    const size = placed > 20_000 ? 2 : placed > 2000 ? 3 : 4;
    const foreground = themeColour('--vscode-foreground', '#888');
    // Largest group first, so that rare states (missing, non_contactable) stay visible on top.
    const groups = [...byState].sort((a, b) => b[1].length - a[1].length);
    for (const [code, list] of groups) {
      const name = cols.stateNames[code] ?? '';
      const variable = STATE_COLOURS[name];
      ctx.fillStyle = variable ? themeColour(variable, foreground) : foreground;
      for (const r of list) {
        const x = offX + (cols.lng[r] - minLng) * kx * scale;
        const y = offY + (maxLat - cols.lat[r]) * scale;
        ctx.fillRect(x - size / 2, y - size / 2, size, size);
      }
    }
    const parts: string[] = [];
    for (const [code, list] of groups) {
      const name = cols.stateNames[code] || 'no state';
      parts.push(`${name} ${formatCount(list.length)}`);
      this.legend.appendChild(h('span', { class: 'legend-item' }, h('span', { class: `dot ${stateClass(cols.stateNames[code] ?? '')}`, 'aria-hidden': 'true' }), `${name} ${formatCount(list.length)}`));
    }
    this.canvas.setAttribute('aria-label', `Plot of ${formatCount(placed)} vehicle positions by state: ${parts.join(', ')}. Latitude ${minLat.toFixed(4)} to ${maxLat.toFixed(4)}, longitude ${minLng.toFixed(4)} to ${maxLng.toFixed(4)}.`);
    this.canvas.setAttribute('data-theme', document.body.className);
  }
}
