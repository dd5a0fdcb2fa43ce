/**
 * The host's side of the Metrics view of a data-quality report: computes the OMF metrics in the analysis worker
 * (per geography when the setting mobilityApi.analysis.geographies names a Geography document), keeps the last view
 * for the exports (built from it, never from data the webview sends), saves them through a save dialog (written
 * whole or not at all), and sets the geographies from an open dialog.
 */
import path from 'node:path';
import * as vscode from 'vscode';
import { errorMessage, isCancelled } from '../../core/base';
import { isGeographyUrl } from '../../core/geography';
import { writeChunksAtomically } from '../../results/history/exportFile';
import { metricsCsv, metricsGeoJson } from '../../results/metrics/metricsExport';
import { METRICS_VIEW_DEFAULT, metricsMapView } from '../../results/metrics/metricsPanelView';
import type { MetricsMapView, MetricsViewAnswer, MetricsViewRequest } from '../../shared/metricsMap/metricsMapViews';
import type { CommandDeps } from '../platform/commandDeps';
import type { AnalysisWorkerClient } from './analysisClient';
import type { OmfMetricsResult } from './workerProtocol';

const SETTING = 'analysis.geographies';

/** The setting's Geography document: a URL, or a path (relative to the first workspace folder); undefined when empty. */
export function geographiesSetting(): string | undefined {
  const value = vscode.workspace.getConfiguration('mobilityApi').get<string>(SETTING)?.trim();
  if (!value) return undefined;
  if (isGeographyUrl(value) || path.isAbsolute(value)) return value;
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  return folder ? path.join(folder, value) : path.resolve(value);
}

/** The Metrics view of the report of `folder`, shown as result `resultId`. */
export function metricsViewHost(
  deps: CommandDeps,
  client: AnalysisWorkerClient,
  folder: string,
  resultId: string,
): (request: MetricsViewRequest) => Promise<MetricsViewAnswer> {
  let shown: MetricsMapView | undefined;
  let last: { measures: string[]; interval: string; timeZone: string } = METRICS_VIEW_DEFAULT;

  async function compute(request: {
    measures: string[];
    interval: string;
    timeZone: string;
  }): Promise<MetricsViewAnswer> {
    last = request;
    const geographies = geographiesSetting();
    try {
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Computing the OMF metrics…') },
        () =>
          client.request<OmfMetricsResult>({
            op: 'omfMetrics',
            folder,
            ...request,
            ...(geographies ? { geographies } : {}),
          }),
      );
      shown = metricsMapView({
        resultId,
        report: result.report,
        ...(result.geographies ? { geographies: result.geographies } : {}),
      });
      deps.log.info(
        'metricsView',
        `${request.measures.join(',')} ${request.interval} ${request.timeZone}: ${shown.intervals.length} intervals, ${shown.places.length} places`,
      );
      return { resultId, view: shown };
    } catch (err) {
      if (isCancelled(err)) return { resultId, error: vscode.l10n.t('The metrics were cancelled.') };
      deps.log.warn('metricsView', errorMessage(err));
      return { resultId, error: errorMessage(err) };
    }
  }

  async function save(format: 'csv' | 'geojson', interval: number, measure: number): Promise<MetricsViewAnswer> {
    const view = shown;
    if (!view || interval >= view.intervals.length || measure >= view.measures.length)
      return { resultId, error: vscode.l10n.t('Compute the metrics first: there is nothing to save.') };
    const text = format === 'csv' ? metricsCsv(view, interval) : metricsGeoJson(view, interval, measure);
    if (text === undefined)
      return {
        resultId,
        error: vscode.l10n.t('There are no geographies to save as GeoJSON: choose a Geography document first.'),
      };
    const stamp = (view.intervals[interval] ?? '').replace(/[^0-9A-Za-z]+/g, '');
    const name = `${path.basename(folder)}-metrics-${stamp}.${format}`;
    const base = vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(path.dirname(folder));
    const uri = await vscode.window.showSaveDialog({
      defaultUri: vscode.Uri.joinPath(base, name),
      filters: format === 'csv' ? { CSV: ['csv'] } : { GeoJSON: ['geojson', 'json'] },
      saveLabel: vscode.l10n.t('Save'),
      title:
        format === 'csv'
          ? vscode.l10n.t('Save the metrics table of {0} as CSV', view.intervals[interval])
          : vscode.l10n.t('Save the geographies coloured by {0} as GeoJSON', view.measures[measure].name),
    });
    if (!uri) return { resultId, status: vscode.l10n.t('Not saved.') };
    if (uri.scheme !== 'file') return { resultId, error: vscode.l10n.t('Choose a file on this machine.') };
    const outcome = await writeChunksAtomically(uri.fsPath, [text]);
    if (outcome.ok) {
      deps.log.info('metricsView', `saved ${format} to ${uri.fsPath}`);
      return { resultId, status: vscode.l10n.t('Saved {0}.', path.basename(uri.fsPath)) };
    }
    return { resultId, error: outcome.cancelled ? vscode.l10n.t('Not saved.') : outcome.message };
  }

  async function chooseGeographies(): Promise<MetricsViewAnswer> {
    const picked = await vscode.window.showOpenDialog({
      canSelectFiles: true,
      canSelectFolders: false,
      canSelectMany: false,
      filters: { [vscode.l10n.t('MDS Geography document')]: ['json', 'geojson'] },
      openLabel: vscode.l10n.t('Use These Geographies'),
      title: vscode.l10n.t('The MDS Geography document (geographies.json) to map the metrics over'),
    });
    if (!picked?.[0]) return { resultId, status: vscode.l10n.t('No geographies chosen.') };
    const target = vscode.workspace.workspaceFolders?.length
      ? vscode.ConfigurationTarget.Workspace
      : vscode.ConfigurationTarget.Global;
    await vscode.workspace.getConfiguration('mobilityApi').update(SETTING, picked[0].fsPath, target);
    return compute(last);
  }

  return async (request) => {
    switch (request.op) {
      case 'compute':
        return compute(request);
      case 'export':
        return save(request.format, request.interval, request.measure);
      case 'chooseGeographies':
        return chooseGeographies();
    }
  };
}
