// The Environments view's rows of an API's endpoints (environmentsTree.ts): "Endpoints" under an environment, and
// one row per endpoint of its catalogue, plus "Other path…"; a click sends it with a fresh token.
import * as vscode from 'vscode';
import type { Environment } from '../../core/environment';
import { catalogueOf } from '../../core/mds';
import { COMMANDS } from '../platform/commandIds';

/** "Endpoints" under environment `environmentId` (`env` undefined: no longer configured). */
export function endpointsItem(environmentId: string, env: Environment | undefined): vscode.TreeItem {
  const item = new vscode.TreeItem(vscode.l10n.t('Endpoints'), vscode.TreeItemCollapsibleState.Collapsed);
  item.id = `endpoints:${environmentId}`;
  item.description = env ? String(catalogueOf(env.api).length) : '';
  item.iconPath = new vscode.ThemeIcon('symbol-interface');
  item.contextValue = 'endpoints';
  item.tooltip = vscode.l10n.t('The endpoints of this API: click one to send it with a fresh token.');
  return item;
}

/** "Trips  /trips": the title first, the path beside it; what it takes and answers in the tooltip. */
export function endpointItem(
  element: { environmentId: string; endpointId?: string; otherPath?: boolean },
  env: Environment | undefined,
): vscode.TreeItem {
  const endpoint =
    env && element.endpointId ? catalogueOf(env.api).find((e) => e.id === element.endpointId) : undefined;
  const args = {
    environmentId: element.environmentId,
    ...(endpoint ? { endpointId: endpoint.id } : { otherPath: true }),
  };
  const item = new vscode.TreeItem(endpoint ? endpoint.title : vscode.l10n.t('Other path…'));
  item.id = `endpoint:${element.environmentId}:${endpoint?.id ?? '*'}`;
  // `.hour` marks the hour endpoints, for Fetch Hours… in the context menu.
  item.contextValue = `endpoint.${env?.api ?? 'unknown'}${endpoint?.hourEndpoint ? '.hour' : ''}`;
  item.command = { command: COMMANDS.sendRequest, title: vscode.l10n.t('Send Request…'), arguments: [args] };
  if (!endpoint) {
    item.description = vscode.l10n.t('any path');
    item.iconPath = new vscode.ThemeIcon('edit');
    item.tooltip = vscode.l10n.t(
      'Type any path under {0}, with a query, and send it with a fresh token.',
      env?.baseUrl ?? '',
    );
    return item;
  }
  item.description = endpoint.pathTemplate;
  item.iconPath = new vscode.ThemeIcon(endpoint.parameters.length ? 'symbol-parameter' : 'arrow-right');
  item.tooltip = [
    `GET ${endpoint.pathTemplate}`,
    endpoint.description,
    ...endpoint.parameters.map(
      (p) =>
        `${p.name}: ${p.formatDescription}${p.defaultDescription ? ` (${vscode.l10n.t('default: {0}', p.defaultDescription)})` : ''}`,
    ),
  ].join('\n');
  item.accessibilityInformation = { label: `${endpoint.title}, GET ${endpoint.pathTemplate}` };
  return item;
}
