// The host side of the harvest view (Fetch Hours…): what the panel shows of a harvest while it runs and
// after, and the items of the hour the user chooses, read from the hour's NDJSON file in the folder.
// The records come from the harvest engine's progress events and, at the end, from the folder's manifest,
// the same one `mobility-api harvest` writes and reads.
import fs from 'node:fs';
import path from 'node:path';
import type { Environment } from '../../core/environment';
import type { HourRecord } from '../../core/harvest';
import { MANIFEST_FILE, hourFileOf, parseManifest } from '../../core/harvest';
import type { MdsHourEndpointId } from '../../core/mds';
import { MDS_HOUR_ENDPOINTS } from '../../core/mds';
import { environmentView } from '../../results/requests/environmentView';
import { harvestHeatmapView } from '../../results/analysis/harvestHeatmap';
import { harvestHourView } from '../../results/analysis/harvestHourView';
import type { DataTableView } from '../../shared/dataTable';
import type { HarvestResultView } from '../../shared/harvestViews';
import type { HostMessage } from '../../shared/protocol';
import type { HarvestOrigin } from '../../shared/resultSummary';

/** What Fetch Hours… tells the panel while its harvest runs. */
export interface HarvestDisplay {
  /** The hour being fetched now (undefined between hours). */
  fetching(hour: string | undefined): void;
  /** An hour was recorded in the manifest. */
  recorded(hour: string, record: HourRecord): void;
  /** What the run does now that its hours are fetched (the snapshot): shown as its status; still running. */
  step(text: string): void;
  /** The harvest ended, finished or `stopped` early (why: Cancel, a refusal…): the folder's manifest is read again, as the truth. */
  finished(stopped?: string): Promise<void>;
}

/** What the panel needs to show a harvest. */
export interface HarvestDisplayArgs {
  environment: Environment;
  endpoint: MdsHourEndpointId;
  outDir: string;
  /** The whole harvest's folder when `outDir` is one endpoint's subfolder of it (several endpoints at once). */
  harvestFolder?: string;
  from: string;
  to: string;
  title: string;
}

/** The least time between two heatmap updates while hours finish quickly (a month is 720 cells); longer ranges wait longer, as each update sends every cell. */
const UPDATE_INTERVAL_MS = 250;
/** Added to the interval per hour of the range: a year (8,760 cells) is updated about every 2.4 s. */
const UPDATE_MS_PER_HOUR = 0.25;

/** What a session shows: the harvest's origin (as the panel persists it), its endpoint checked, and a title. */
export type HarvestSessionArgs = HarvestOrigin & { endpoint: MdsHourEndpointId; title: string };

/** One harvest as a panel shows it. */
export class HarvestSession implements HarvestDisplay {
  readonly view: HarvestResultView;
  private hours: Record<string, HourRecord> = {};
  private current: string | undefined;
  private shown: { hour: string; table: DataTableView } | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastPost = 0;

  /** The session of a harvest that starts now. */
  static starting(args: HarvestDisplayArgs, id: string, post: (message: HostMessage) => void): HarvestSession {
    return new HarvestSession(
      { ...args, environment: environmentView(args.environment) },
      readManifestHours(args.outDir, args.endpoint) ?? {},
      id,
      post,
      { running: true, createdAt: Date.now() },
    );
  }

  /**
   * The session of a panel restored after a reload, from the folder's manifest as it is now; undefined when
   * the endpoint is not an hour endpoint or the folder has no readable manifest of it (moved, deleted).
   */
  static restored(
    origin: HarvestOrigin,
    title: string,
    createdAt: number,
    id: string,
    post: (message: HostMessage) => void,
  ): HarvestSession | undefined {
    if (!(MDS_HOUR_ENDPOINTS as readonly string[]).includes(origin.endpoint)) return undefined;
    const endpoint = origin.endpoint as MdsHourEndpointId;
    const hours = readManifestHours(origin.outDir, endpoint);
    if (!hours) return undefined;
    return new HarvestSession({ ...origin, endpoint, title }, hours, id, post, { running: false, createdAt });
  }

  /** `post` sends a message to the panel that shows this session (dropped when it shows something else). */
  private constructor(
    readonly args: HarvestSessionArgs,
    hours: Record<string, HourRecord>,
    id: string,
    private readonly post: (message: HostMessage) => void,
    { running, createdAt }: { running: boolean; createdAt: number },
  ) {
    this.hours = hours;
    const heatmap = this.heatmap();
    const { environment, endpoint, outDir, harvestFolder, from, to } = args;
    this.view = {
      kind: 'harvest',
      id,
      title: args.title,
      createdAt,
      environment,
      endpoint,
      outDir,
      analysisFolder: harvestFolder ?? outDir,
      from,
      to,
      running,
      heatmap,
      summary: {
        kind: 'harvest',
        title: args.title,
        line: heatmap.line,
        createdAt,
        environmentId: environment.id,
        environmentName: environment.name,
        canRunAgain: false,
        harvest: { environment, endpoint, outDir, ...(harvestFolder ? { harvestFolder } : {}), from, to },
      },
    };
  }

  fetching(hour: string | undefined): void {
    if (this.current === hour) return;
    this.current = hour;
    this.schedule();
  }

  recorded(hour: string, record: HourRecord): void {
    this.hours[hour] = record;
    if (this.current === hour) this.current = undefined;
    this.schedule();
  }

  step(text: string): void {
    this.view.step = text;
    this.current = undefined;
    this.update();
  }

  async finished(stopped?: string): Promise<void> {
    delete this.view.step;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.current = undefined;
    this.view.running = false;
    if (stopped) this.view.stopped = stopped;
    const manifest = await readManifestHoursAsync(this.args.outDir, this.args.endpoint);
    if (manifest) this.hours = manifest;
    this.update();
  }

  /** The message with the items of `hour` (read from its file when the manifest records it as done). */
  async hourMessage(hour: string): Promise<HostMessage> {
    const record = this.hours[hour];
    let text: string | undefined;
    if (record && (record.status === 'items' || record.status === 'empty')) {
      // The file's name from the hour (as the engine checks it), never the manifest's `file`: a hand-edited manifest cannot point outside the folder.
      const file = path.join(this.args.outDir, ...hourFileOf(this.args.endpoint, hour).split('/'));
      text = await fs.promises.readFile(file, 'utf8').catch(() => undefined);
    }
    const view = harvestHourView(this.args.endpoint, hour, record, text);
    this.shown = view.table ? { hour, table: view.table } : undefined;
    this.view.hour = view;
    return { type: 'harvestHour', resultId: this.view.id, hour: view };
  }

  /** The table of the hour shown, for an export. */
  shownTable(): DataTableView | undefined {
    return this.shown?.table;
  }

  /** The hour whose items are shown (`YYYY-MM-DDTHH`): an export's file name says it. */
  shownHour(): string | undefined {
    return this.shown?.hour;
  }

  /** Stops the pending update (the panel shows something else now). */
  dispose(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private heatmap() {
    return harvestHeatmapView({
      endpoint: this.args.endpoint,
      from: this.args.from,
      to: this.args.to,
      hours: this.hours,
      fetching: this.current,
    });
  }

  /** Updates at most every UPDATE_INTERVAL_MS; the last change is always sent. */
  private schedule(): void {
    if (this.timer) return;
    const interval = UPDATE_INTERVAL_MS + UPDATE_MS_PER_HOUR * this.view.heatmap.days.length * 24;
    const wait = Math.max(0, this.lastPost + interval - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.update();
    }, wait);
  }

  private update(): void {
    this.lastPost = Date.now();
    const heatmap = this.heatmap();
    this.view.heatmap = heatmap;
    this.view.summary.line = heatmap.line;
    this.post({
      type: 'harvestProgress',
      resultId: this.view.id,
      heatmap,
      running: this.view.running,
      ...(this.view.stopped ? { stopped: this.view.stopped } : {}),
      ...(this.view.step ? { step: this.view.step } : {}),
      summaryLine: heatmap.line,
    });
  }
}

/** The hours of the folder's manifest for `endpoint`, or undefined (no manifest, another endpoint's, or not readable). */
function readManifestHours(outDir: string, endpoint: MdsHourEndpointId): Record<string, HourRecord> | undefined {
  const file = path.join(outDir, MANIFEST_FILE);
  try {
    return hoursFor(parseManifest(fs.readFileSync(file, 'utf8'), file), endpoint);
  } catch {
    return undefined;
  }
}

async function readManifestHoursAsync(
  outDir: string,
  endpoint: MdsHourEndpointId,
): Promise<Record<string, HourRecord> | undefined> {
  const file = path.join(outDir, MANIFEST_FILE);
  try {
    return hoursFor(parseManifest(await fs.promises.readFile(file, 'utf8'), file), endpoint);
  } catch {
    return undefined;
  }
}

function hoursFor(
  manifest: ReturnType<typeof parseManifest>,
  endpoint: MdsHourEndpointId,
): Record<string, HourRecord> | undefined {
  return manifest.endpoint === endpoint ? { ...manifest.hours } : undefined;
}
