// What Fetch Hours… is given, and the questions it asks for whatever is missing: the hour endpoints (and the
// snapshot), the range of UTC hours (checked as it is typed) and the output folder.
import os from 'node:os';
import * as vscode from 'vscode';
import type { Environment } from '../../core/environment';
import { isMobilityError, MobilityError } from '../../core/base';
import {
  catalogueOf,
  checkParameterValue,
  formatUtcHour,
  HOUR_MS,
  lastCompleteUtcHour,
  MDS_HOUR_ENDPOINTS,
  parseUtcHour,
} from '../../core/mds';
import type { MdsHourEndpointId } from '../../core/mds';
import { plural } from '../../shared/format';
import { harvestFolderStart } from './harvestFolder';
import { pickMany } from '../environments/pickers';
import { Cancelled } from '../platform/registerCommand';

/** The harvest engine's check of a range (harvest.bundle.ts), passed in: the engine is loaded on first use. */
type HoursOf = typeof import('./harvest.bundle').hoursOf;

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

/** Hours offered by default: the last 24 complete ones. */
const DEFAULT_HOURS = 24;

export function endpointTitle(env: Environment, endpoint: MdsHourEndpointId): string {
  return catalogueOf(env.api).find((e) => e.id === endpoint)?.title ?? endpoint;
}

/**
 * The endpoints given (checked), else those the user ticks among the hour endpoints, with a box for the snapshot of
 * /vehicles and /vehicles/status (taken once, at the end of the run).
 */
export async function endpointsOf(
  env: Environment,
  args: FetchHoursArgs | undefined,
): Promise<{ endpoints: MdsHourEndpointId[]; snapshot: boolean }> {
  const hourly = catalogueOf(env.api).filter(
    (e) => e.hourEndpoint && (MDS_HOUR_ENDPOINTS as readonly string[]).includes(e.id),
  );
  const given = args?.endpointIds ?? (args?.endpointId !== undefined ? [args.endpointId] : undefined);
  if (given !== undefined) {
    const endpoints = given.map((id) => {
      const found = hourly.find((e) => e.id === id);
      if (!found)
        throw new MobilityError(
          'ENDPOINT_UNKNOWN',
          vscode.l10n.t(
            '{0} is not an hour endpoint. Fetch Hours works on {1}.',
            id,
            hourly.map((e) => e.id).join(', '),
          ),
        );
      return found.id as MdsHourEndpointId;
    });
    if (!endpoints.length)
      throw new MobilityError(
        'ENDPOINT_UNKNOWN',
        vscode.l10n.t('Name at least one hour endpoint: {0}.', hourly.map((e) => e.id).join(', ')),
      );
    if (new Set(endpoints).size !== endpoints.length)
      throw new MobilityError(
        'ENDPOINT_UNKNOWN',
        vscode.l10n.t('Name each hour endpoint once: {0}.', given.join(', ')),
      );
    return { endpoints, snapshot: args?.snapshot === true };
  }
  type Item = vscode.QuickPickItem & { id: string };
  const snapshotItem: Item = {
    label: vscode.l10n.t('Snapshot of /vehicles and /vehicles/status'),
    description: vscode.l10n.t('every page, once at the end, into <folder>/snapshot/'),
    detail: vscode.l10n.t('For the checks status-vs-events and registry, and metrics by vehicle type.'),
    id: 'snapshot',
  };
  const items: Item[] = [
    ...hourly.map((e) => ({ label: e.title, description: e.pathTemplate, detail: e.description, id: e.id })),
    { label: '', kind: vscode.QuickPickItemKind.Separator, id: '' },
    snapshotItem,
  ];
  const picked = await pickMany(
    items,
    vscode.l10n.t('Fetch Hours · {0}', env.name),
    vscode.l10n.t('Which hour endpoints? Several go into a subfolder each.'),
    vscode.l10n.t(
      'Tick at least one hour endpoint (Space ticks the highlighted one): {0}.',
      hourly.map((e) => e.title).join(', '),
    ),
  );
  const endpoints = picked.filter((p) => p.id && p.id !== 'snapshot').map((p) => p.id as MdsHourEndpointId);
  return { endpoints, snapshot: picked.some((p) => p.id === 'snapshot') };
}

/** A range given programmatically, checked as the CLI checks it (PARAMETER_INVALID saying what to fix). */
export function checkedRange(hoursOf: HoursOf, from: string, to: string): { from: string; to: string } {
  for (const [name, value] of [
    ['from', from],
    ['to', to],
  ] as const) {
    const checked = checkParameterValue(name, 'utc_hour', value);
    if (!checked.ok) throw new MobilityError('PARAMETER_INVALID', checked.problem);
  }
  hoursOf(from.trim(), to.trim());
  return { from: from.trim(), to: to.trim() };
}

/** Asks for the first and the last hour, each checked as it is typed; by default the last 24 complete hours. */
export async function askRange(
  hoursOf: HoursOf,
  env: Environment,
  endpoints: readonly MdsHourEndpointId[],
  givenFrom: string | undefined,
  givenTo: string | undefined,
): Promise<{ from: string; to: string }> {
  const now = Date.now();
  const lastMs = parseUtcHour(givenTo ?? '') ?? parseUtcHour(lastCompleteUtcHour(now)) ?? now;
  const title = vscode.l10n.t(
    'Fetch Hours · {0} · {1}',
    endpoints.map((e) => endpointTitle(env, e)).join(', '),
    env.name,
  );
  const from = await vscode.window.showInputBox({
    title: vscode.l10n.t('{0} (1/2)', title),
    prompt: vscode.l10n.t(
      'The first hour to fetch, in UTC: YYYY-MM-DDTHH, e.g. 2025-11-05T00. Every hour from it to the last one is fetched, one request per hour.',
    ),
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
        return {
          message: vscode.l10n.t('{0} to fetch.', plural(count, 'hour')),
          severity: vscode.InputBoxValidationSeverity.Info,
        };
      } catch (err) {
        return isMobilityError(err) ? err.message : String(err);
      }
    },
  });
  if (to === undefined) throw new Cancelled();
  return checkedRange(hoursOf, from, to);
}

/** The output folder, from a folder picker; a folder of an earlier harvest of the same endpoint is resumed. */
export async function askFolder(
  env: Environment,
  endpoint: MdsHourEndpointId,
  state: vscode.Memento,
  several = false,
): Promise<string> {
  const editor = vscode.window.activeTextEditor?.document.uri;
  const start = harvestFolderStart({
    editorFolder: editor ? vscode.workspace.getWorkspaceFolder(editor)?.uri.fsPath : undefined,
    workspaceFolders: (vscode.workspace.workspaceFolders ?? [])
      .filter((f) => f.uri.scheme === 'file')
      .map((f) => f.uri.fsPath),
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
      ? vscode.l10n.t(
          'Folder for the harvest of several endpoints, one subfolder each · {0} (a folder of an earlier run is resumed)',
          env.name,
        )
      : vscode.l10n.t(
          'Folder for the hour files and manifest.json of {0} · {1} (a folder of an earlier run is resumed)',
          endpointTitle(env, endpoint),
          env.name,
        ),
  });
  const folder = picked?.[0];
  if (!folder) throw new Cancelled();
  if (folder.scheme !== 'file')
    throw new MobilityError(
      'HARVEST_WRITE_FAILED',
      vscode.l10n.t('Choose a folder on this machine: {0} is not a local folder.', folder.toString()),
    );
  await state.update(LAST_HARVEST_FOLDER_KEY, folder.fsPath);
  return folder.fsPath;
}

/** The workspace-state key of the folder of the last harvest (a path, never a secret). */
const LAST_HARVEST_FOLDER_KEY = 'mobilityApi.lastHarvestFolder';
