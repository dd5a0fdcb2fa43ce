// The results panels as a set, and what the commands call to show a result: the entry of dist/resultsPanel.js,
// loaded when the first panel opens or is restored (see resultsController.ts), not at activation.
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import type { Environment } from '../../core/environment';
import type { HostMessage, ResultView } from '../../shared/protocol';
import { parsePersistedState, RESULTS_VIEW_TYPE } from '../../shared/protocol';
import type { ResultSummary } from '../../shared/resultSummary';
import { listingOf, resultView } from '../../results/requests/resultView';
import { compareResultView } from '../../results/tokens/compareView';
import { configureHostL10n } from './l10nBundle';
import { listingView, requestErrorView } from '../../results/requests/listingView';
import { tokenResultView } from '../../results/tokens/tokenView';
import { MDS_HOUR_ENDPOINTS } from '../../core/mds';
import { grpcResultView } from '../../results/grpc/grpcView';
import { grpcOutcomes, resultOutcomes } from '../../core/contract';
import { assertionViews, grpcAnswerOf } from '../../results/contract/assertionView';
import { HarvestSession } from './harvestPanel';
import { errorMessage } from '../../core/base';
import { COMMANDS } from '../platform/commandIds';
import { analysisResultView } from '../../results/analysis/analysisView';
import { analysisTimelineError, analysisTimelineView } from '../../results/analysis/analysisTimeline';

import { LOG, ResultsPanel } from './resultsPanel';
import type { HeldResult } from './heldResult';
import type { ResultsPanels } from './resultsPanelsApi';
import { heldSend } from './heldResult';
import { runAgainOf } from './runAgain';
import { historyEntryOf } from '../../results/history/historyEntry';
import { WaitingHistories } from '../../results/history/waitingHistories';
import { ANALYSIS_PANEL, COMPARE_PANEL, environmentPanelKey, panelKeyOf, panelTitleOf } from './panelKeys';

// This bundle (dist/resultsPanel.js) has its own copy of @vscode/l10n: point it at the extension's strings.
configureHostL10n();

/**
 * The results panels: one per environment (and one for tokens without an environment), so that
 * results of staging and production sit side by side as editor tabs. A new result for an environment
 * is shown in its panel and joins the panel's history, where the earlier ones stay to be shown again
 * and compared. This module and the view models it uses are
 * loaded when the first panel opens, not at activation (dist/resultsPanel.js).
 */
export function createResultsPanels(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): ResultsPanels {
  const panels = new Map<string, ResultsPanel>();
  /** The panel that last showed a listing or result: what the export command saves when no panel is active. */
  let lastResultPanel: ResultsPanel | undefined;
  /** What a test run or an agent gave an environment whose panel is not open: its history when it opens. */
  const waiting = new WaitingHistories<HeldResult>();
  const forget = (panel: ResultsPanel) => {
    if (panels.get(panel.key) === panel) panels.delete(panel.key);
    if (lastResultPanel === panel) lastResultPanel = undefined;
  };

  const adopt = (key: string, webviewPanel: vscode.WebviewPanel, summary: ResultSummary | undefined): ResultsPanel => {
    // Two restored panels of one environment: the later one gets its own key rather than replacing.
    let unique = key;
    for (let n = 2; panels.has(unique); n++) unique = `${key}#${n}`;
    const history = unique === key ? waiting.take(key) : undefined;
    const panel = new ResultsPanel(unique, webviewPanel, context.extensionUri, log, summary, forget, history);
    panels.set(unique, panel);
    return panel;
  };

  /** Shows the session `create` makes in `panel`; its live updates reach the panel while the panel shows it. */
  const showHarvestSession = (
    panel: ResultsPanel,
    create: (post: (message: HostMessage) => void) => HarvestSession | undefined,
    title: string,
    options: { environment?: Environment; reveal?: boolean },
  ): HarvestSession | undefined => {
    const holder: { held?: HeldResult } = {};
    const session = create((message) => {
      if (holder.held) panel.postFor(holder.held, message);
    });
    if (!session) return undefined;
    holder.held = { view: session.view, tokens: [], pages: [], environment: options.environment, harvest: session };
    panel.show(holder.held, title, options.reveal ?? true);
    return session;
  };

  /** The panel of `environment` for a result of `kind`: the open one, or a new one beside the editor in front. */
  const panelFor = (
    environment: Environment | undefined,
    kind: ResultView['kind'],
    endpoint?: string,
  ): ResultsPanel => {
    // A harvest gets a tab of its own per endpoint (a run of several shows each one's heatmap): the environment's last result stays beside it.
    const key =
      kind === 'compare'
        ? COMPARE_PANEL
        : kind === 'analysis'
          ? ANALYSIS_PANEL
          : kind === 'harvest'
            ? `harvest:${panelKeyOf(environment)}:${endpoint ?? ''}`
            : panelKeyOf(environment);
    const existing = panels.get(key);
    if (existing) return existing;
    // preserveFocus: a panel that took focus would take it again when its webview finishes loading, and
    // close whatever quick pick the user had opened by then (e.g. the next command's).
    const webviewPanel = vscode.window.createWebviewPanel(
      RESULTS_VIEW_TYPE,
      panelTitleOf(environment, kind),
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      {
        enableScripts: true,
        enableFindWidget: true,
        // The page loads nothing: its bundle and stylesheet are inline (panelHtml.ts).
        localResourceRoots: [],
      },
    );
    return adopt(key, webviewPanel, undefined);
  };

  /**
   * Shows a send's held result in its environment's panel, where it joins the panel's history. `reveal` false (a test
   * run's answers) leaves an open panel where it is; with none open, the result waits for the panel (VS Code opens every
   * new panel in front of its group: it would cover the request file), which shows it in its history when it opens.
   */
  const showSend = (held: HeldResult, title: string, logWhat: string, reveal = true): string => {
    const environment = held.environment as Environment;
    const key = panelKeyOf(environment);
    if (!reveal && !panels.has(key) && held.view.kind === 'listing') {
      held.title = title;
      waiting.hold(key, historyEntryOf(held.view, true), held, runAgainOf(held));
      log.info(`${LOG} ${logWhat}: ${held.view.summary.line} (in the history of the panel, not open)`);
      return held.view.id;
    }
    const panel = panelFor(environment, 'listing');
    lastResultPanel = panel;
    panel.show(held, title, reveal);
    log.info(`${LOG} ${logWhat}: ${held.view.summary.line}`);
    return held.view.id;
  };

  return {
    restore(webviewPanel, state) {
      // The webview persists a summary and its UI choices, never rows or tokens (see protocol.ts).
      const persisted = parsePersistedState(state);
      const key = persisted?.panelKey ?? `restored:${randomUUID()}`;
      const newest = panels.has(key) ? undefined : waiting.newest(key);
      const panel = adopt(key, webviewPanel, persisted?.summary);
      // Results that waited for this environment's panel: the newest shown, all in its history.
      if (newest) panel.showKept(newest.view.id, false);
      log.info(`${LOG} restored a results panel${persisted?.summary ? ` (${persisted.summary.title})` : ''}`);
      // A harvest's heatmap comes back from its folder's manifest: the hours are on disk, not in the webview.
      const summary = persisted?.summary;
      const origin = summary?.kind === 'harvest' ? summary.harvest : undefined;
      if (
        summary &&
        origin &&
        showHarvestSession(
          panel,
          (post) => HarvestSession.restored(origin, summary.title, summary.createdAt, randomUUID(), post),
          summary.title,
          { reveal: false },
        )
      ) {
        log.info(`${LOG} ${summary.title}: the heatmap again from ${origin.outDir}`);
      }
      // A data-quality report comes back by analysing its folder again (its findings are not stored); until then, and
      // when that fails, the panel says so with a button to analyse again.
      const analysed = summary?.kind === 'analysis' ? summary.analysis?.folder : undefined;
      if (analysed) {
        panel.restoreAnalysis({ state: 'running' });
        log.info(`${LOG} ${summary?.title ?? ''}: analysing ${analysed} again`);
        void Promise.resolve(
          vscode.commands.executeCommand<{ ok: boolean; message?: string } | undefined>(COMMANDS.analyzeHarvest, {
            folder: analysed,
            restore: true,
          }),
        ).then(
          (outcome) => {
            if (!outcome?.ok)
              panel.restoreAnalysis({
                state: 'failed',
                problem: outcome?.message ?? vscode.l10n.t('the analysis gave no report'),
              });
          },
          (err: unknown) => panel.restoreAnalysis({ state: 'failed', problem: errorMessage(err) }),
        );
      }
    },
    showListing(args) {
      const view = listingView({
        id: randomUUID(),
        environment: args.environment,
        listing: args.listing,
        credentialLabel: args.credentialLabel,
        canLoadNext: !!args.loadNextPage,
        canCopyCurl: !!args.curlCommand,
        now: Date.now(),
        refusal: args.refusal,
      });
      const loadNext = args.loadNextPage;
      showSend(
        heldSend(view, {
          environment: args.environment,
          pages: args.listing.pages,
          loadNext: loadNext && (async (nextUrl) => ({ listing: await loadNext(nextUrl) })),
          curlCommand: args.curlCommand,
          codeSource: args.codeSource,
        }),
        panelTitleOf(args.environment, 'listing'),
        args.environment.name,
      );
    },
    showResult(args) {
      const view = resultView({
        id: randomUUID(),
        environment: args.environment,
        result: args.result,
        title: args.title,
        credentialLabel: args.credentialLabel,
        canLoadNext: !!args.loadNextPage,
        canCopyCurl: !!args.curlCommand,
        canRunAgain: !!args.runAgain,
        now: Date.now(),
        refusal: args.refusal,
      });
      view.canLoadAll = !!args.loadAllPages && !!args.result.nextUrl;
      if (args.assertions)
        view.assertions = assertionViews(
          resultOutcomes({ ...args.assertions, request: { endpointId: args.endpointId } }, args.result),
        );
      view.canFetchHours =
        args.environment.api === 'mds' && (MDS_HOUR_ENDPOINTS as readonly string[]).includes(args.endpointId ?? '');
      const loadNext = args.loadNextPage;
      return showSend(
        heldSend(view, {
          environment: args.environment,
          pages: args.result.pages,
          loadNext:
            loadNext &&
            (async (nextUrl) => {
              const result = await loadNext(nextUrl);
              return { listing: listingOf(result), result };
            }),
          loadAll: args.loadAllPages,
          curlCommand: args.curlCommand,
          runAgain: args.runAgain,
          endpointId: args.endpointId,
          codeSource: args.codeSource,
        }),
        args.title,
        `${args.environment.name}: ${args.title}`,
        args.reveal ?? true,
      );
    },
    showGrpcResult(args) {
      const { view, pages } = grpcResultView({
        id: randomUUID(),
        environment: args.environment,
        result: args.result,
        title: args.title,
        target: args.target,
        credentialLabel: args.credentialLabel,
        canRunAgain: !!args.runAgain,
        canCopyGrpcurl: !!args.grpcurlCommand,
        now: Date.now(),
        refusal: args.refusal,
      });
      if (args.assertions) view.assertions = assertionViews(grpcOutcomes(args.assertions, grpcAnswerOf(args.result)));
      const held = heldSend(view, {
        environment: args.environment,
        pages,
        runAgain: args.runAgain,
        codeSource: args.codeSource,
      });
      if (args.grpcurlCommand) held.grpcurlCommand = args.grpcurlCommand;
      return showSend(held, args.title, `${args.environment.name}: gRPC ${args.title}`, args.reveal ?? true);
    },
    showKept(environmentId, resultId) {
      const key = environmentPanelKey(environmentId);
      // No panel open but results waiting for it (a test run's): it opens now, with them in its history.
      const newest = panels.has(key) ? undefined : waiting.newest(key);
      const panel = panels.get(key) ?? (newest && panelFor(newest.environment, 'listing'));
      if (!panel)
        return {
          ok: false,
          message: vscode.l10n.t(
            'The results panel of this environment was closed, and its history with it. Run the test again to see its answer.',
          ),
        };
      const shown = panel.showKept(resultId);
      // A panel opened for a result it no longer keeps in full shows the newest rather than nothing.
      if (!shown.ok && newest) panel.showKept(newest.view.id);
      if (shown.ok || newest) lastResultPanel = panel;
      return shown;
    },
    historyOf(environmentId) {
      const key = environmentPanelKey(environmentId);
      return panels.get(key)?.historyEntries() ?? waiting.of(key)?.list() ?? [];
    },
    async exportShown(request) {
      // The active panel when one is, else the one that last showed a result.
      const active = [...panels.values()].find(
        (p) => p.panel.active && (p.shown?.view.kind === 'listing' || p.shown?.view.kind === 'harvest'),
      );
      const panel = active ?? lastResultPanel;
      if (!panel) return { ok: false, message: vscode.l10n.t('No result to save: run a request first.') };
      return panel.export(request);
    },
    shownCodeSource(tab) {
      const all = [...panels.values()];
      const byTab = tab ? all.filter((p) => p.panel.title === tab.label && p.panel.viewColumn === tab.viewColumn) : [];
      const panel = all.find((p) => p.panel.active) ?? (byTab.length === 1 ? byTab[0] : undefined);
      return panel?.shown?.codeSource;
    },
    showRequestError(args) {
      const view = requestErrorView({
        id: randomUUID(),
        environment: args.environment,
        error: args.error,
        url: args.url,
        now: Date.now(),
      });
      panelFor(args.environment, 'requestError').show(
        { view, tokens: [], pages: [], environment: args.environment },
        panelTitleOf(args.environment, 'requestError'),
      );
    },
    showToken(args) {
      const view = tokenResultView({ id: randomUUID(), ...args, now: Date.now() });
      panelFor(args.environment, 'token').show(
        { view, tokens: [args.token], pages: [], environment: args.environment },
        panelTitleOf(args.environment, 'token'),
      );
    },
    showHarvest(args) {
      const panel = panelFor(args.environment, 'harvest', args.endpoint);
      const session = showHarvestSession(
        panel,
        (post) => HarvestSession.starting(args, randomUUID(), post),
        args.title,
        { environment: args.environment },
      ) as HarvestSession;
      lastResultPanel = panel;
      log.info(`${LOG} ${args.environment.name}: ${args.title} into ${args.outDir}`);
      return session;
    },
    showAnalysis(args) {
      const view = analysisResultView({
        id: randomUUID(),
        report: args.report,
        inUse: args.inUse,
        now: Date.now(),
        ...(args.metrics ? { metrics: args.metrics } : {}),
      });
      const held: HeldResult = { view, tokens: [], pages: [] };
      const metricsView = args.metricsView?.(view.id);
      if (metricsView) held.metricsView = metricsView;
      const read = args.timeline;
      if (read) {
        held.timeline = async (ref) => {
          const finding = view.rules.find((r) => r.id === ref.rule)?.findings[ref.index];
          if (!finding?.device_id) return undefined;
          try {
            const answer = await read(finding);
            return analysisTimelineView({ ...ref, resultId: view.id, finding, rows: answer.rows });
          } catch (err) {
            log.warn(`${LOG} the timeline of a finding of ${ref.rule}: ${errorMessage(err)}`);
            return analysisTimelineError({ ...ref, resultId: view.id, finding, error: errorMessage(err) });
          }
        };
      }
      panelFor(undefined, 'analysis').show(held, view.title, args.reveal ?? true);
      log.info(`${LOG} ${view.title}: ${view.summary.line}`);
      return view.id;
    },
    showComparison(args) {
      const view = compareResultView({
        id: randomUUID(),
        left: args.left,
        right: args.right,
        environment: args.environment,
        now: Date.now(),
      });
      panelFor(undefined, 'compare').show(
        { view, tokens: [args.left.token, args.right.token], pages: [] },
        panelTitleOf(undefined, 'compare'),
      );
    },
    dispose() {
      for (const panel of [...panels.values()]) panel.dispose();
      panels.clear();
      waiting.clear();
    },
  };
}
