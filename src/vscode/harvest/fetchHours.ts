import path from 'node:path';
import * as vscode from 'vscode';
import { isMobilityError, MobilityError } from '../../core/base';
import type { HarvestSummary, SnapshotManifest } from '../../core/harvest';
import type { MdsHourEndpointId } from '../../core/mds';
import { formatCount, plural } from '../../shared/format';
import type { CommandDeps, CommandOutcome } from '../platform/commandDeps';
import { COMMANDS } from '../platform/commandIds';
import type { FetchHoursArgs } from './fetchHoursAsk';
import { askFolder, askRange, checkedRange, endpointsOf, endpointTitle } from './fetchHoursAsk';
import { resolveCredential, resolveEnvironment } from '../environments/pickers';
import { registerCommand } from '../platform/registerCommand';

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

/** The coverage of one endpoint's range. */
type EndpointOutcome = Pick<
  HarvestSummary,
  | 'endpoint'
  | 'outDir'
  | 'manifestFile'
  | 'from'
  | 'to'
  | 'hours'
  | 'coverage'
  | 'items'
  | 'fetched'
  | 'skipped'
  | 'notReached'
  | 'interrupted'
  | 'complete'
>;

/** The subfolder each endpoint gets when several are fetched at once (the CLI's names). */
const SUBFOLDER: Readonly<Record<MdsHourEndpointId, string>> = {
  trips: 'trips',
  events_historical: 'events',
  telemetry: 'telemetry',
};

/**
 * How Fetch Hours… ended: the coverage of the range, never a token. With several endpoints the fields are the first
 * endpoint's, `endpoints` has each one's and `complete`/`interrupted` are the run's; `snapshot` when one was taken.
 */
export type FetchHoursOutcome = CommandOutcome<
  EndpointOutcome & {
    environmentId: string;
    endpoints?: EndpointOutcome[];
    snapshot?: { folder: string; vehicles: number; vehiclesStatus: number; lastUpdated?: number };
  }
>;

/**
 * Fetch Hours…: every hour of a range of an hour endpoint (trips, telemetry, historical events) into a
 * folder, with the CLI's engine and folder format (so `mobility-api harvest` resumes it and the other way
 * round), a fresh token per request from the window's client (its per-key clock is shared with every
 * process), progress with Cancel, and the coverage heatmap in a results panel, live.
 */
export function registerFetchHours(deps: CommandDeps): vscode.Disposable {
  return registerCommand(deps, COMMANDS.fetchHours, async (args?: FetchHoursArgs): Promise<FetchHoursOutcome> => {
    const { harvestHours, harvestSnapshot, hoursOf } = loadEngine();
    const env = await resolveEnvironment(
      deps,
      args?.environmentId ? { environmentId: args.environmentId } : undefined,
      vscode.l10n.t('Fetch hours from which environment?'),
      (e) => e.api === 'mds',
    );
    if (env.api !== 'mds')
      throw new MobilityError(
        'ENDPOINT_UNKNOWN',
        vscode.l10n.t(
          '{0} is a MaaS environment; Fetch Hours works on the MDS hour endpoints (trips, telemetry, historical events). Choose an MDS environment.',
          env.name,
        ),
      );
    const chosen = await endpointsOf(env, args);
    const { endpoints, snapshot } = chosen;
    const several = endpoints.length > 1;
    const first = endpoints[0];
    const { from, to } =
      args?.from !== undefined && args.to !== undefined
        ? checkedRange(hoursOf, args.from, args.to)
        : await askRange(hoursOf, env, endpoints, args?.from, args?.to);
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
        const display = deps.results.showHarvest({
          environment: env,
          endpoint,
          outDir: dir,
          ...(several ? { harvestFolder: outDir } : {}),
          from,
          to,
          title,
        });
        deps.log.info('fetchHours', `${endpoint} ${from} to ${to} from ${env.baseUrl} into ${dir}`);
        let summary: HarvestSummary | undefined;
        let failure: string | undefined;
        try {
          summary = await vscode.window.withProgress(
            { location: vscode.ProgressLocation.Notification, title, cancellable: true },
            (progress, cancel) => {
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
                  const where =
                    p.phase === 'waiting' && p.hour
                      ? vscode.l10n.t('{0}: waiting {1} s', p.hour, Math.round(p.waitSeconds ?? 0))
                      : (p.hour ?? '');
                  const counts = vscode.l10n.t(
                    '{0} of {1} hours · {2} items',
                    formatCount(p.hoursDone),
                    formatCount(p.hoursTotal),
                    formatCount(p.items),
                  );
                  const line = where ? vscode.l10n.t('{0} {1}', counts, where) : counts;
                  const message = paced
                    ? vscode.l10n.t(
                        '{0} · at most 1 request a second (second precision; the setting mobilityApi.token.clockPrecision can be milliseconds)',
                        line,
                      )
                    : line;
                  progress.report({ increment: done - reported, message });
                  reported = done;
                },
              });
            },
          );
        } catch (err) {
          failure = isMobilityError(err) ? err.message : vscode.l10n.t('an unexpected error (see the log)');
          throw err;
        } finally {
          const why =
            failure ??
            (summary?.interrupted
              ? vscode.l10n.t(
                  'cancelled. The hours finished are recorded; run Fetch Hours on the same folder to resume.',
                )
              : undefined);
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
            taken = await vscode.window.withProgress(
              {
                location: vscode.ProgressLocation.Notification,
                title: vscode.l10n.t('Fetch Hours: snapshot of /vehicles and /vehicles/status · {0}', env.name),
                cancellable: true,
              },
              (_progress, cancel) => {
                const stop = new AbortController();
                cancel.onCancellationRequested(() => stop.abort());
                return harvestSnapshot({
                  client: deps.clients.get(),
                  environment: env,
                  credential,
                  outDir,
                  signal: stop.signal,
                });
              },
            );
          } catch (err) {
            failed = vscode.l10n.t(
              'the snapshot of /vehicles and /vehicles/status was not taken ({0}). The hours are recorded; run Fetch Hours on the same folder with the snapshot box ticked to take it.',
              isMobilityError(err) ? err.message : vscode.l10n.t('an unexpected error (see the log)'),
            );
            throw err;
          } finally {
            await display.finished(failed);
          }
          deps.log.info(
            'fetchHours',
            `snapshot: ${taken.lists.vehicles.items} vehicles, ${taken.lists.vehicles_status.items} statuses into ${path.join(outDir, 'snapshot')}`,
          );
        }
      }
    } finally {
      deps.session.harvesting.delete(outDir);
    }
    const lines = summaries.map((summary) => {
      const c = summary.coverage;
      const line = vscode.l10n.t(
        '{0}: {1} with items ({2}), {3} empty, {4} not found (404), {5} pending (202), {6} failed.',
        plural(summary.hours, 'hour'),
        c.items,
        plural(summary.items, 'item'),
        c.empty,
        c.not_found,
        c.pending,
        c.failed,
      );
      return several ? vscode.l10n.t('{0}: {1}', endpointTitle(env, summary.endpoint), line) : line;
    });
    if (taken)
      lines.push(
        vscode.l10n.t(
          'Snapshot: {0} vehicles, {1} statuses.',
          taken.lists.vehicles.items,
          taken.lists.vehicles_status.items,
        ),
      );
    const line = lines.join(' ');
    const complete = summaries.length === endpoints.length && summaries.every((x) => x.complete);
    deps.log.info('fetchHours', `${line}${stopped ? ' Stopped by the user.' : ''}`);
    if (stopped)
      void vscode.window.showInformationMessage(
        vscode.l10n.t(
          'Fetch Hours stopped: the hours finished are recorded in {0}. Run Fetch Hours (or mobility-api harvest) on the same folder to resume. {1}',
          summaries[summaries.length - 1].manifestFile,
          line,
        ),
      );
    else if (!complete)
      void vscode.window.showWarningMessage(
        vscode.l10n.t('Fetch Hours: {0} Hours not done are fetched again when you run it on the same folder.', line),
      );
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
      ...(taken
        ? {
            snapshot: {
              folder: path.join(outDir, 'snapshot'),
              vehicles: taken.lists.vehicles.items,
              vehiclesStatus: taken.lists.vehicles_status.items,
              ...(taken.lastUpdated !== undefined ? { lastUpdated: taken.lastUpdated } : {}),
            },
          }
        : {}),
    };
  });
}
