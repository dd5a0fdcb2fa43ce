// The key and the tab title of each results panel: one per environment, one for tokens without an environment,
// one for token comparisons and one for data-quality reports (see resultsPanel.bundle.ts).
import * as vscode from 'vscode';
import type { Environment } from '../../core/environment';
import type { ResultView } from '../../shared/protocol';

const TOKENS_PANEL = 'tokens';
export const COMPARE_PANEL = 'compare';
export const ANALYSIS_PANEL = 'analysis';

/** The key of an environment's results panel. */
export function environmentPanelKey(environmentId: string): string {
  return `env:${environmentId}`;
}

export function panelKeyOf(environment: Environment | undefined): string {
  return environment ? environmentPanelKey(environment.id) : TOKENS_PANEL;
}

export function panelTitleOf(environment: Environment | undefined, kind: ResultView['kind']): string {
  if (kind === 'compare') return vscode.l10n.t('Compare Tokens');
  if (kind === 'analysis') return vscode.l10n.t('Data Quality');
  if (!environment) return vscode.l10n.t('Token');
  return kind === 'token'
    ? vscode.l10n.t('Token: {0}', environment.name)
    : vscode.l10n.t('Results: {0}', environment.name);
}
