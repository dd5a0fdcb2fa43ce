import * as vscode from 'vscode';
import type { VehicleListing } from '../core/apiClient';
import { curlCommand } from '../core/curlCommand';
import type { Environment } from '../core/environment';
import { vehiclesUrl } from '../core/environment';
import { isMobilityError, MobilityError } from '../core/errors';
import type { Credential } from '../core/credential';
import type { CommandDeps, CommandOutcome, EnvironmentTarget } from './commandDeps';
import { COMMANDS } from './commandIds';
import { resolveCredential, resolveEnvironment } from './pickers';
import { registerCommand } from './registerCommand';

/** List Vehicles and Vehicle Status (MDS): a fresh token per request and per page, cancellable, into the results panel. */
export function registerListVehicles(deps: CommandDeps): vscode.Disposable[] {
  const run = async (target: EnvironmentTarget | undefined, status: boolean): Promise<CommandOutcome> => {
    const env = await resolveEnvironment(
      deps,
      target,
      status ? vscode.l10n.t('Vehicle status of which MDS environment?') : vscode.l10n.t('List the vehicles of which environment?'),
      status ? (e) => e.api === 'mds' : undefined,
    );
    if (status && env.api !== 'mds') throw new MobilityError('USAGE', vscode.l10n.t('Vehicle status is an MDS request; {0} is a MaaS environment. Use List Vehicles.', env.name));
    const { credential, info } = await resolveCredential(deps, env);
    const query = { status };
    const listing = await fetchWithProgress(deps, env, credential, { query }, status ? vscode.l10n.t('Vehicle status of {0}', env.name) : vscode.l10n.t('Vehicles of {0}', env.name));
    deps.results.showListing({
      environment: env,
      listing,
      credentialLabel: info.label,
      loadNextPage: (nextUrl) => fetchWithProgress(deps, env, credential, { query, from: nextUrl }, vscode.l10n.t('Next page of {0}', env.name)),
      curlCommand: async () => {
        const issued = await deps.clients.issuer.issue(credential, env);
        deps.tokenHistory.record(issued, 'curl');
        return curlCommand(vehiclesUrl(env, query), { ...(env.headers ?? {}), 'Content-Type': 'application/json' }, { token: issued.token });
      },
    });
    const last = listing.pages[listing.pages.length - 1];
    return {
      ok: true,
      environmentId: env.id,
      status: last.status,
      items: listing.items.length,
      pages: listing.pages.length,
      nextUrl: listing.nextUrl,
      error: last.mdsError,
      bodyProblem: last.bodyProblem,
      retryAfterSeconds: last.retryAfterSeconds,
    };
  };
  return [
    registerCommand(deps, COMMANDS.listVehicles, (target?: EnvironmentTarget) => run(target, false)),
    registerCommand(deps, COMMANDS.vehicleStatus, (target?: EnvironmentTarget) => run(target, true)),
  ];
}

async function fetchWithProgress(deps: CommandDeps, env: Environment, credential: Credential, options: { query: { status: boolean }; from?: string }, title: string): Promise<VehicleListing> {
  try {
    const listing = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, (progress, cancel) => {
      const abort = new AbortController();
      cancel.onCancellationRequested(() => abort.abort());
      return deps.clients.get().listVehicles(env, credential, {
        ...options,
        signal: abort.signal,
        onPage: (page, n) => progress.report({ message: vscode.l10n.t('page {0}: {1} {2}', n, page.status, page.statusText) }),
      });
    });
    for (const page of listing.pages) {
      if (page.token) deps.tokenHistory.record(page.token, 'request', { url: page.url, status: page.status, statusText: page.statusText });
    }
    const last = listing.pages[listing.pages.length - 1];
    const summary = last.ok
      ? vscode.l10n.t('{0} {1} · {2} vehicles', last.status, last.statusText, listing.items.length)
      : `${last.status} ${last.statusText}${last.mdsError ? ` · ${last.mdsError.error}` : ''}`;
    deps.environments.recordResult(env.id, { at: Date.now(), ok: last.ok, summary });
    deps.log.info('request', `GET ${last.url} → ${last.status} ${last.statusText} (${listing.items.length} items, ${listing.pages.length} page(s))`);
    return listing;
  } catch (err) {
    if (isMobilityError(err) && err.code !== 'HTTP_ABORTED') {
      deps.environments.recordResult(env.id, { at: Date.now(), ok: false, summary: err.code.replace(/^HTTP_/, '').toLowerCase().replace(/_/g, ' ') });
      // A failed next page is reported inside the panel, which keeps the rows it has.
      if (!options.from) deps.results.showRequestError({ environment: env, error: err });
    }
    throw err;
  }
}
