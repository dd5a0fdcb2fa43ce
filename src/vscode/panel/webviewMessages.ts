// What a results panel's webview asks of the host, every message but `ready`: copies with a fresh token, more pages,
// saving, a page's body or editor, the history's actions, a harvest's hours and a report's views. The panel
// (resultsPanel.ts) keeps its state and its handshake with the page, and gives these handlers what they may use.
import fs from 'node:fs';
import * as vscode from 'vscode';
import { COMMANDS } from '../platform/commandIds';
import type { HostMessage, WebviewMessage } from '../../shared/protocol';
import type { ResultSummary } from '../../shared/resultSummary';
import { bodyView } from '../../results/requests/bodyView';
import { compareHistoryResults } from '../../results/history/historyCompare';
import { HISTORY_KEPT_IN_FULL } from '../../shared/historyViews';
import type { ResultHistory } from '../../results/history/resultHistory';
import type { ConformancePort } from './conformanceCheck';
import type { ExportRequest, ExportResultOutcome } from './exportResult';
import type { HeldResult } from './heldResult';
import { hourOf } from './heldResult';
import { loadAllPages, loadNextPage } from './pageLoader';
import type { PagePort } from './pageLoader';
import { copyCurl, copyGrpcurl, copyPayload, copyToken } from './panelClipboard';
import { rerunCommand, runAgainOf } from './runAgain';

/** What the webview's messages may do with their panel. */
export interface WebviewMessageHost {
  /** What the page loader, the conformance check and the copy buttons may do with the panel. */
  readonly port: PagePort & ConformancePort;
  /** This session's sends in the panel, newest first. */
  readonly history: ResultHistory<HeldResult>;
  /** The result shown when its id is `resultId`; undefined for any other (a message about a result replaced since). */
  held(resultId: string): HeldResult | undefined;
  /** The result shown, if any. */
  shown(): HeldResult | undefined;
  /** The summary of the result shown before a reload, while no result is shown. */
  restored(): ResultSummary | undefined;
  post(message: HostMessage): void;
  /** Posts `message` while `held` is the result shown. */
  postFor(held: HeldResult, message: HostMessage): void;
  /** Shows a history entry again, while it is kept in full. */
  showFromHistory(resultId: string): void;
  /** Saves the result shown. */
  export(request: ExportRequest): Promise<ExportResultOutcome>;
}

/** Does what `message` asks; a failure is the caller's to log and show. */
export async function handleWebviewMessage(
  message: Exclude<WebviewMessage, { type: 'ready' }>,
  host: WebviewMessageHost,
): Promise<void> {
  switch (message.type) {
    case 'copyToken':
      await copyToken(host.held(message.resultId), message.pageIndex, host.port);
      return;
    case 'copyPayload':
      await copyPayload(host.held(message.resultId), message.pageIndex, host.port);
      return;
    case 'copyCurl':
      await copyCurl(host.held(message.resultId), message.resultId, host.port);
      return;
    case 'copyGrpcurl':
      await copyGrpcurl(host.held(message.resultId), message.resultId, host.port);
      return;
    case 'showHistoryEntry':
      host.showFromHistory(message.resultId);
      return;
    case 'runHistoryEntryAgain': {
      const again = host.history.again(message.resultId);
      if (!again) {
        host.post({
          type: 'notice',
          level: 'error',
          text: vscode.l10n.t(
            'This request cannot be sent again from the history: send it from where it was sent first.',
          ),
        });
        return;
      }
      await again();
      return;
    }
    case 'compareHistory':
      compareFromHistory(message.leftId, message.rightId, host);
      return;
    case 'loadNextPage': {
      const held = host.held(message.resultId);
      if (held) await loadNextPage(held, host.port);
      return;
    }
    case 'loadAllPages': {
      const held = host.held(message.resultId);
      if (held) await loadAllPages(held, host.port);
      return;
    }
    case 'export': {
      if (!host.held(message.resultId)) {
        host.post({
          type: 'notice',
          level: 'error',
          text: 'This result is no longer held (the panel was reloaded). Run the request again.',
        });
        return;
      }
      await host.export({ format: message.format, query: message.query, pageIndex: message.pageIndex });
      return;
    }
    case 'showHarvestHour': {
      const harvest = host.held(message.resultId)?.harvest;
      if (harvest) host.post(await harvest.hourMessage(message.hour));
      return;
    }
    case 'fetchHours': {
      const held = host.held(message.resultId);
      if (!held?.environment || !held.endpointId) return;
      await vscode.commands.executeCommand(COMMANDS.fetchHours, {
        environmentId: held.environment.id,
        endpointId: held.endpointId,
        to: hourOf(held.pages[0]?.url),
      });
      return;
    }
    case 'analysisTimeline': {
      const held = host.held(message.resultId);
      const timeline = await held?.timeline?.({ rule: message.rule, index: message.index });
      if (held && timeline) host.postFor(held, { type: 'analysisTimeline', timeline });
      return;
    }
    case 'metricsView': {
      const held = host.held(message.resultId);
      if (held?.metricsView)
        host.postFor(held, { type: 'metricsView', answer: await held.metricsView(message.request) });
      return;
    }
    case 'analyzeAgain': {
      const current = host.shown();
      const folder = current?.view.kind === 'analysis' ? current.view.folder : host.restored()?.analysis?.folder;
      // A folder that has gone: the command asks for one.
      await vscode.commands.executeCommand(
        COMMANDS.analyzeHarvest,
        folder && fs.existsSync(folder) ? { folder } : undefined,
      );
      return;
    }
    case 'analyzeHarvest': {
      const view = host.held(message.resultId)?.view;
      if (view?.kind !== 'harvest' || view.running) return;
      await vscode.commands.executeCommand(COMMANDS.analyzeHarvest, { folder: view.analysisFolder });
      return;
    }
    case 'requestBody': {
      const held = host.held(message.resultId);
      const page = held?.pages[message.pageIndex];
      if (!held || !page) return;
      host.post({ type: 'body', body: bodyView(page, message.resultId, message.pageIndex) });
      return;
    }
    case 'openInEditor': {
      const page = host.held(message.resultId)?.pages[message.pageIndex];
      if (!page) return;
      const content = page.text ?? (page.bodyKind === 'json' ? JSON.stringify(page.body, null, 2) : '');
      const document = await vscode.workspace.openTextDocument({
        content,
        language: page.bodyKind === 'json' ? 'json' : 'plaintext',
      });
      await vscode.window.showTextDocument(document, { preview: true, viewColumn: vscode.ViewColumn.Active });
      return;
    }
    case 'runAgain': {
      const current = host.shown();
      const restored = host.restored();
      const again = current
        ? runAgainOf(current)
        : restored?.canRunAgain && restored.environmentId
          ? rerunCommand(restored.environmentId, restored.rerun)
          : undefined;
      await again?.();
      return;
    }
  }
}

/** Compares two history entries that are kept in full and are answers (listings). */
function compareFromHistory(leftId: string, rightId: string, host: WebviewMessageHost): void {
  const left = host.history.held(leftId)?.view;
  const right = host.history.held(rightId)?.view;
  if (left?.kind !== 'listing' || right?.kind !== 'listing') {
    host.post({
      type: 'notice',
      level: 'error',
      text: vscode.l10n.t(
        'Compare needs two answers kept in full (the last {0}); a request that got no answer has nothing to compare.',
        HISTORY_KEPT_IN_FULL,
      ),
    });
    return;
  }
  host.post({ type: 'historyCompare', compare: compareHistoryResults(left, right) });
}
