import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import type { Environment } from '../../core/environment';
import { isMobilityError, MobilityError } from '../../core/base';
import type { HarvestSummary, SnapshotManifest } from '../../core/harvest';
import { catalogueOf, checkParameterValue, formatUtcHour, HOUR_MS, lastCompleteUtcHour, MDS_HOUR_ENDPOINTS, parseUtcHour } from '../../core/mds';
import type { MdsHourEndpointId } from '../../core/mds';
import { formatCount, plural } from '../../shared/format';
import type { CommandDeps, CommandOutcome } from '../platform/commandDeps';
import { COMMANDS } from '../platform/commandIds';
import { harvestFolderStart } from './harvestFolder';
import { pickMany, resolveCredential, resolveEnvironment } from '../environments/pickers';
import { Cancelled, registerCommand } from '../platform/registerCommand';

/**
 * The harvest engine, loaded when Fetch Hours first runs, not at activation: it brings ajv and the MDS
 * schemas (for `--validate`), which would more than double the code the extension host loads at startup.
 * It is a bundle of its own (`dist/harvest.js`, see esbuild.js and harvestEngine.ts).
 */
type HarvestEngine = typeof import('./harvest.bundle');
function loadEngine(): HarvestEngine {
  // A computed path, so that esbuild leaves this require to run time (Node loads the file once).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(path.join(__dirname, 'harvest.js')) as HarvestEngine;
}

/**
 * What the Environments tree (an endpoint node), a result of an hour endpoint or a caller passes to
 * Fetch Hours…; whatever is missing is asked for. Tests and scripts give everything.
 */
export interface FetchHoursArgs {
  environmentId?: string;
  /** `trips`, `telemetry` or `events_historical`. */
  endpointId?: string;
  /** First and last hour, `YYYY-MM-DDTHH` (UTC), both included. */
  from?: string;
  to?: string;
  /**
   * Several endpoints at once (`trips`, `telemetry`, `events_historical`): each into a subfolder of `outDir` of its own
   * (`trips`, `telemetry`, `events`, as `mobility-api harvest trips,events,telemetry`), each resumable on its own.
   */
  endpointIds?: string[];
  /** Also fetch every page of /vehicles and /vehicles/status at the end of the run, into `<outDir>/snapshot/`. */
  snapshot?: boolean;
  /** The output folder (created when missing). */
  outDir?: string;
}

/** The coverage of one endpoint's range. */
type EndpointOutcome = Pick<HarvestSummary, 'endpoint' | 'outDir' | 'manifestFile' | 'from' | 'to' | 'hours' | 'coverage' | 'items' | 'fetched' | 'skipped' | 'notReached' | 'interrupted' | 'complete'>;

/** The subfolder each endpoint gets when several are fetched at once (the CLI's names). */
const SUBFOLDER: Readonly<Record<MdsHourEndpointId, string>> = { trips: 'trips', events_historical: 'events', telemetry: 'telemetry' };

/**
 * How Fetch Hours… ended: the coverage of the range, never a token. With several endpoints the fields are the first
 * endpoint's, `endpoints` has each one's and `complete`/`interrupted` are the run's; `snapshot` when one was taken.
 */
export type FetchHoursOutcome = CommandOutcome<EndpointOutcome & { environmentId: string; endpoints?: EndpointOutcome[]; snapshot?: { folder: string; vehicles: number; vehiclesStatus: number; lastUpdated?: number } }>;

/** Hours offered by default: the last 24 complete ones. */
const DEFAULT_HOURS = 24;

/**
 * Fetch Hours…: every hour of a range of an hour endpoint (trips, telemetry, historical events) into a
 * folder, with the CLI's engine and folder format (so `mobility-api harvest` resumes it and the other way
 * round), a fresh token per request from the window's client (its per-key clock is shared with every
 * process), progress with Cancel, and the coverage heatmap in a results panel, live.
 */
export function registerFetchHours(deps: CommandDeps): vscode.Disposable {
  return registerCommand(deps, COMMANDS.fetchHours, async (args?: FetchHoursArgs): Promise<FetchHoursOutcome> => {
    const { harvestHours, harvestSnapshot, hoursOf } = loadEngine();
    const env = await resolveEnvironment(deps, args?.environmentId ? { environmentId: args.environmentId } : undefined, vscode.l10n.t('Fetch hours from which environment?'), (e) => e.api === 'mds');
    if (env.api !== 'mds') throw new MobilityError('ENDPOINT_UNKNOWN', vscode.l10n.t('{0} is a MaaS environment; Fetch Hours works on the MDS hour endpoints (trips, telemetry, historical events). Choose an MDS environment.', env.name));
    const chosen = await endpointsOf(env, args);
    const { endpoints, snapshot } = chosen;
    const several = endpoints.length > 1;
    const first = endpoints[0];
    const { from, to } = args?.from !== undefined && args.to !== undefined ? checkedRange(hoursOf, args.from, args.to) : await askRange(hoursOf, env, endpoints, args?.from, args?.to);
    const outDir = args?.outDir ?? (await askFolder(env, first, deps.context.workspaceState, several));
    const { credential } = await resolveCredential(deps, env);
    const summaries: HarvestSummary[] = [];
    let taken: SnapshotManifest | undefined;
    let stopped = false;
    // Analyze Harvest in this window says "still writing" until everything asked for (the snapshot too) is on disk.
    deps.session.harvesting.add(outDir);
    try {
      for (const [index, endpoint] of endpoints.entries()) {
        const dir = several ? path.join(outDir, SUBFOLDER[endpoint]) : outDir;
        // The snapshot comes after the last endpoint: its panel says "Finished" (and offers Analyze Harvest) once it is written.
        const snapshotAfter = snapshot && index === endpoints.length - 1;
        const title = vscode.l10n.t('Fetch Hours: {0} · {1}', endpointTitle(env, endpoint), env.name);
        // Each endpoint's panel analyses the whole harvest (every endpoint and the snapshot), not its own subfolder.
        const display = deps.results.showHarvest({ environment: env, endpoint, outDir: dir, ...(several ? { harvestFolder: outDir } : {}), from, to, title });
        deps.log.info('fetchHours', `${endpoint} ${from} to ${to} from ${env.baseUrl} into ${dir}`);
        let summary: HarvestSummary | undefined;
        let failure: string | undefined;
        try {
          summary = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, (progress, cancel) => {
            const stop = new AbortController();
            cancel.onCancellationRequested(() => stop.abort());
            let reported = 0;
            // At second precision one key signs at most one token a second: that sets the pace, so the progress line says so.
            let paced = false;
            return harvestHours({
              client: deps.clients.get(),
              environment: env,
              credential,
              endpoint,
              from,
              to,
              outDir: dir,
              signal: stop.signal,
              onProgress: (p) => {
                if (p.phase === 'request' && p.hour) display.fetching(p.hour);
                if (p.phase === 'hour' && p.hour && p.record) display.recorded(p.hour, p.record);
                if (p.notice) {
                  paced = true;
                  deps.log.info('fetchHours', p.notice);
                }
                const done = (100 * p.hoursDone) / Math.max(1, p.hoursTotal);
                const where = p.phase === 'waiting' && p.hour ? vscode.l10n.t('{0}: waiting {1} s', p.hour, Math.round(p.waitSeconds ?? 0)) : p.hour ?? '';
                const counts = vscode.l10n.t('{0} of {1} hours · {2} items', formatCount(p.hoursDone), formatCount(p.hoursTotal), formatCount(p.items));
                const line = where ? vscode.l10n.t('{0} {1}', counts, where) : counts;
                const message = paced ? vscode.l10n.t('{0} · at most 1 request a second (second precision; the setting mobilityApi.token.clockPrecision can be milliseconds)', line) : line;
                progress.report({ increment: done - reported, message });
                reported = done;
              },
            });
          });
        } catch (err) {
          failure = isMobilityError(err) ? err.message : vscode.l10n.t('an unexpected error (see the log)');
          throw err;
        } finally {
          const why = failure ?? (summary?.interrupted ? vscode.l10n.t('cancelled. The hours finished are recorded; run Fetch Hours on the same folder to resume.') : undefined);
          if (why || !snapshotAfter) await display.finished(why);
        }
        summaries.push(summary);
        if (summary.interrupted) {
          stopped = true;
          break;
        }
        if (snapshotAfter) {
          display.step(vscode.l10n.t('Taking the snapshot of /vehicles and /vehicles/status…'));
          let failed: string | undefined;
          try {
            taken = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Fetch Hours: snapshot of /vehicles and /vehicles/status · {0}', env.name), cancellable: true }, (_progress, cancel) => {
              const stop = new AbortController();
              cancel.onCancellationRequested(() => stop.abort());
              return harvestSnapshot({ client: deps.clients.get(), environment: env, credential, outDir, signal: stop.signal });
            });
          } catch (err) {
            failed = vscode.l10n.t('the snapshot of /vehicles and /vehicles/status was not taken ({0}). The hours are recorded; run Fetch Hours on the same folder with the snapshot box ticked to take it.', isMobilityError(err) ? err.message : vscode.l10n.t('an unexpected error (see the log)'));
            throw err;
          } finally {
            await display.finished(failed);
          }
          deps.log.info('fetchHours', `snapshot: ${taken.lists.vehicles.items} vehicles, ${taken.lists.vehicles_status.items} statuses into ${path.join(outDir, 'snapshot')}`);
        }
      }
    } finally {
      deps.session.harvesting.delete(outDir);
    }
    const lines = summaries.map((summary) => {
      const c = summary.coverage;
      const line = vscode.l10n.t('{0}: {1} with items ({2}), {3} empty, {4} not found (404), {5} pending (202), {6} failed.', plural(summary.hours, 'hour'), c.items, plural(summary.items, 'item'), c.empty, c.not_found, c.pending, c.failed);
      return several ? vscode.l10n.t('{0}: {1}', endpointTitle(env, summary.endpoint), line) : line;
    });
    if (taken) lines.push(vscode.l10n.t('Snapshot: {0} vehicles, {1} statuses.', taken.lists.vehicles.items, taken.lists.vehicles_status.items));
    const line = lines.join(' ');
    const complete = summaries.length === endpoints.length && summaries.every((x) => x.complete);
    deps.log.info('fetchHours', `${line}${stopped ? ' Stopped by the user.' : ''}`);
    if (stopped) void vscode.window.showInformationMessage(vscode.l10n.t('Fetch Hours stopped: the hours finished are recorded in {0}. Run Fetch Hours (or mobility-api harvest) on the same folder to resume. {1}', summaries[summaries.length - 1].manifestFile, line));
    else if (!complete) void vscode.window.showWarningMessage(vscode.l10n.t('Fetch Hours: {0} Hours not done are fetched again when you run it on the same folder.', line));
    else void vscode.window.showInformationMessage(vscode.l10n.t('Fetch Hours: complete. {0}', line));
    const outcomeOf = (summary: HarvestSummary): EndpointOutcome => ({
      endpoint: summary.endpoint,
      outDir: summary.outDir,
      manifestFile: summary.manifestFile,
      from: summary.from,
      to: summary.to,
      hours: summary.hours,
      coverage: summary.coverage,
      items: summary.items,
      fetched: summary.fetched,
      skipped: summary.skipped,
      notReached: summary.notReached,
      interrupted: summary.interrupted,
      complete: summary.complete,
    });
    return {
      ok: true,
      environmentId: env.id,
      ...outcomeOf(summaries[0]),
      interrupted: stopped,
      complete,
      ...(several ? { endpoints: summaries.map(outcomeOf) } : {}),
      ...(taken ? { snapshot: { folder: path.join(outDir, 'snapshot'), vehicles: taken.lists.vehicles.items, vehiclesStatus: taken.lists.vehicles_status.items, ...(taken.lastUpdated !== undefined ? { lastUpdated: taken.lastUpdated } : {}) } } : {}),
    };
  });
}

function endpointTitle(env: Environment, endpoint: MdsHourEndpointId): string {
  return catalogueOf(env.api).find((e) => e.id === endpoint)?.title ?? endpoint;
}

/**
 * The endpoints given (checked), else those the user ticks among the hour endpoints, with a box for the snapshot of
 * /vehicles and /vehicles/status (taken once, at the end of the run).
 */
async function endpointsOf(env: Environment, args: FetchHoursArgs | undefined): Promise<{ endpoints: MdsHourEndpointId[]; snapshot: boolean }> {
  const hourly = catalogueOf(env.api).filter((e) => e.hourEndpoint && (MDS_HOUR_ENDPOINTS as readonly string[]).includes(e.id));
  const given = args?.endpointIds ?? (args?.endpointId !== undefined ? [args.endpointId] : undefined);
  if (given !== undefined) {
    const endpoints = given.map((id) => {
      const found = hourly.find((e) => e.id === id);
      if (!found) throw new MobilityError('ENDPOINT_UNKNOWN', vscode.l10n.t('{0} is not an hour endpoint. Fetch Hours works on {1}.', id, hourly.map((e) => e.id).join(', ')));
      return found.id as MdsHourEndpointId;
    });
    if (!endpoints.length) throw new MobilityError('ENDPOINT_UNKNOWN', vscode.l10n.t('Name at least one hour endpoint: {0}.', hourly.map((e) => e.id).join(', ')));
    if (new Set(endpoints).size !== endpoints.length) throw new MobilityError('ENDPOINT_UNKNOWN', vscode.l10n.t('Name each hour endpoint once: {0}.', given.join(', ')));
    return { endpoints, snapshot: args?.snapshot === true };
  }
  type Item = vscode.QuickPickItem & { id: string };
  const snapshotItem: Item = { label: vscode.l10n.t('Snapshot of /vehicles and /vehicles/status'), description: vscode.l10n.t('every page, once at the end, into <folder>/snapshot/'), detail: vscode.l10n.t('For the checks status-vs-events and registry, and metrics by vehicle type.'), id: 'snapshot' };
  const items: Item[] = [
    ...hourly.map((e) => ({ label: e.title, description: e.pathTemplate, detail: e.description, id: e.id })),
    { label: '', kind: vscode.QuickPickItemKind.Separator, id: '' },
    snapshotItem,
  ];
  const picked = await pickMany(items, vscode.l10n.t('Fetch Hours · {0}', env.name), vscode.l10n.t('Which hour endpoints? Several go into a subfolder each.'), vscode.l10n.t('Tick at least one hour endpoint (Space ticks the highlighted one): {0}.', hourly.map((e) => e.title).join(', ')));
  const endpoints = picked.filter((p) => p.id && p.id !== 'snapshot').map((p) => p.id as MdsHourEndpointId);
  return { endpoints, snapshot: picked.some((p) => p.id === 'snapshot') };
}

/** A range given programmatically, checked as the CLI checks it (PARAMETER_INVALID saying what to fix). */
function checkedRange(hoursOf: HarvestEngine['hoursOf'], from: string, to: string): { from: string; to: string } {
  for (const [name, value] of [['from', from], ['to', to]] as const) {
    const checked = checkParameterValue(name, 'utc_hour', value);
    if (!checked.ok) throw new MobilityError('PARAMETER_INVALID', checked.problem);
  }
  hoursOf(from.trim(), to.trim());
  return { from: from.trim(), to: to.trim() };
}

/** Asks for the first and the last hour, each checked as it is typed; by default the last 24 complete hours. */
async function askRange(hoursOf: HarvestEngine['hoursOf'], env: Environment, endpoints: readonly MdsHourEndpointId[], givenFrom: string | undefined, givenTo: string | undefined): Promise<{ from: string; to: string }> {
  const now = Date.now();
  const lastMs = parseUtcHour(givenTo ?? '') ?? parseUtcHour(lastCompleteUtcHour(now)) ?? now;
  const title = vscode.l10n.t('Fetch Hours · {0} · {1}', endpoints.map((e) => endpointTitle(env, e)).join(', '), env.name);
  const from = await vscode.window.showInputBox({
    title: vscode.l10n.t('{0} (1/2)', title),
    prompt: vscode.l10n.t('The first hour to fetch, in UTC: YYYY-MM-DDTHH, e.g. 2025-11-05T00. Every hour from it to the last one is fetched, one request per hour.'),
    value: givenFrom ?? formatUtcHour(lastMs - (DEFAULT_HOURS - 1) * HOUR_MS),
    ignoreFocusOut: true,
    validateInput: (text) => {
      const checked = checkParameterValue('from', 'utc_hour', text);
      return checked.ok ? undefined : checked.problem;
    },
  });
  if (from === undefined) throw new Cancelled();
  const to = await vscode.window.showInputBox({
    title: vscode.l10n.t('{0} (2/2)', title),
    prompt: vscode.l10n.t('The last hour to fetch, in UTC (included): YYYY-MM-DDTHH, not before {0}.', from.trim()),
    value: givenTo ?? formatUtcHour(Math.max(lastMs, parseUtcHour(from.trim()) ?? lastMs)),
    ignoreFocusOut: true,
    validateInput: (text) => {
      const checked = checkParameterValue('to', 'utc_hour', text);
      if (!checked.ok) return checked.problem;
      try {
        const count = hoursOf(from.trim(), text.trim()).length;
        return { message: vscode.l10n.t('{0} to fetch.', plural(count, 'hour')), severity: vscode.InputBoxValidationSeverity.Info };
      } catch (err) {
        return isMobilityError(err) ? err.message : String(err);
      }
    },
  });
  if (to === undefined) throw new Cancelled();
  return checkedRange(hoursOf, from, to);
}

/** The output folder, from a folder picker; a folder of an earlier harvest of the same endpoint is resumed. */
async function askFolder(env: Environment, endpoint: MdsHourEndpointId, state: vscode.Memento, several = false): Promise<string> {
  const editor = vscode.window.activeTextEditor?.document.uri;
  const start = harvestFolderStart({
    editorFolder: editor ? vscode.workspace.getWorkspaceFolder(editor)?.uri.fsPath : undefined,
    workspaceFolders: (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath),
    lastHarvest: state.get<string>(LAST_HARVEST_FOLDER_KEY),
    home: os.homedir(),
  });
  const picked = await vscode.window.showOpenDialog({
    canSelectFolders: true,
    canSelectFiles: false,
    canSelectMany: false,
    defaultUri: vscode.Uri.file(start),
    openLabel: vscode.l10n.t('Fetch into this folder'),
    title: several
      ? vscode.l10n.t('Folder for the harvest of several endpoints, one subfolder each · {0} (a folder of an earlier run is resumed)', env.name)
      : vscode.l10n.t('Folder for the hour files and manifest.json of {0} · {1} (a folder of an earlier run is resumed)', endpointTitle(env, endpoint), env.name),
  });
  const folder = picked?.[0];
  if (!folder) throw new Cancelled();
  if (folder.scheme !== 'file') throw new MobilityError('HARVEST_WRITE_FAILED', vscode.l10n.t('Choose a folder on this machine: {0} is not a local folder.', folder.toString()));
  await state.update(LAST_HARVEST_FOLDER_KEY, folder.fsPath);
  return folder.fsPath;
}

/** The workspace-state key of the folder of the last harvest (a path, never a secret). */
const LAST_HARVEST_FOLDER_KEY = 'mobilityApi.lastHarvestFolder';
