import * as vscode from 'vscode';
import type { HttpExchange, VehicleListing } from '../../core/http';
import { curlCommand } from '../../core/http';
import type { Environment } from '../../core/environment';
import { vehiclesUrl } from '../../core/environment';
import { isCancelled, isMobilityError, MobilityError } from '../../core/base';
import type { Credential } from '../../core/auth';
import { buildEndpointRequest, findEndpoint, nextLinkOf, vehicleListOf } from '../../core/mds';
import { plural } from '../../shared/format';
import type { CommandDeps, CommandOutcome, EnvironmentTarget } from '../platform/commandDeps';
import { COMMANDS } from '../platform/commandIds';
import { resolveCredential, resolveEnvironment } from '../environments/pickers';
import { registerCommand } from '../platform/registerCommand';
import { refusalContextFor } from './refusalContext';

/** List Vehicles and Vehicle Status (MDS): a fresh token per request and per page, cancellable, into the results panel. */
export function registerListVehicles(deps: CommandDeps): vscode.Disposable[] {
  const run = async (target: EnvironmentTarget | undefined, status: boolean): Promise<CommandOutcome> => {
    const env = await resolveEnvironment(
      deps,
      target,
      status
        ? vscode.l10n.t('Vehicle status of which MDS environment?')
        : vscode.l10n.t('List the vehicles of which environment?'),
      status ? (e) => e.api === 'mds' : undefined,
    );
    if (status && env.api !== 'mds')
      throw new MobilityError(
        'USAGE',
        vscode.l10n.t('Vehicle status is an MDS request; {0} is a MaaS environment. Use List Vehicles.', env.name),
      );
    const { credential, info } = await resolveCredential(deps, env);
    const query = { status };
    const listing = await fetchWithProgress(
      deps,
      env,
      credential,
      { query },
      status ? vscode.l10n.t('Vehicle status of {0}', env.name) : vscode.l10n.t('Vehicles of {0}', env.name),
    );
    // Copy as Code from the panel writes the same listing, as the catalogue has it.
    const endpointId = status ? 'vehicles_status' : 'vehicles';
    deps.results.showListing({
      environment: env,
      listing,
      credentialLabel: info.label,
      refusal: await refusalContextFor(deps, credential, listing.pages),
      codeSource: {
        kind: 'http',
        prepared: {
          environment: env,
          request: buildEndpointRequest(env.api, endpointId, {}),
          title: findEndpoint(env.api, endpointId).title,
        },
      },
      loadNextPage: (nextUrl) =>
        fetchWithProgress(deps, env, credential, { query, from: nextUrl }, vscode.l10n.t('Next page of {0}', env.name)),
      curlCommand: async () => {
        const issued = await deps.clients.issuer.issue(credential, env);
        deps.tokenHistory.record(issued, 'curl');
        return curlCommand(
          vehiclesUrl(env, query),
          { ...(env.headers ?? {}), 'Content-Type': 'application/json' },
          { token: issued.token },
        );
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
      stoppedBecause: listing.stoppedBecause,
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

/**
 * One listing with a progress notification that has Cancel. With `mobilityApi.request.loadAllPages`
 * on (the default) it follows `links.next` up to `mobilityApi.request.maxPages` pages; "load next page"
 * (`from`) fetches one page. Cancel after some pages keeps them: the listing ends there, with the next
 * page's URL, so the panel can go on from it.
 */
async function fetchWithProgress(
  deps: CommandDeps,
  env: Environment,
  credential: Credential,
  options: { query: { status: boolean }; from?: string },
  title: string,
): Promise<VehicleListing> {
  const allPages = !options.from && deps.settings.loadAllPages;
  const maxPages = deps.settings.maxPages;
  const received: HttpExchange[] = [];
  let cancelled = false;
  try {
    let listing: VehicleListing;
    try {
      listing = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title, cancellable: true },
        (progress, cancel) => {
          const abort = new AbortController();
          cancel.onCancellationRequested(() => {
            cancelled = true;
            abort.abort();
          });
          let items = 0;
          return deps.clients.get().listVehicles(env, credential, {
            ...options,
            allPages,
            maxPages,
            signal: abort.signal,
            onPage: (page, n) => {
              received.push(page);
              items += vehicleListOf(page.body)?.items.length ?? 0;
              const counted = plural(items, 'vehicle', 'vehicles');
              progress.report({
                message: allPages
                  ? vscode.l10n.t(
                      'page {0} of at most {1}: {2} {3} · {4}',
                      n,
                      maxPages,
                      page.status,
                      page.statusText,
                      counted,
                    )
                  : vscode.l10n.t('{0} {1} · {2}', page.status, page.statusText, counted),
              });
            },
          });
        },
      );
    } catch (err) {
      const partial = cancelled && isCancelled(err) ? partialListing(received) : undefined;
      if (!partial) throw err;
      listing = partial;
    }
    for (const page of listing.pages) {
      if (page.token)
        deps.tokenHistory.record(page.token, 'request', {
          url: page.url,
          status: page.status,
          statusText: page.statusText,
        });
    }
    const last = listing.pages[listing.pages.length - 1];
    const counted = plural(listing.items.length, 'vehicle', 'vehicles');
    const summary = last.ok
      ? `${last.status} ${last.statusText} · ${listing.nextUrl ? vscode.l10n.t('{0} so far', counted) : counted}`
      : `${last.status} ${last.statusText}${last.mdsError ? ` · ${last.mdsError.error}` : ''}`;
    deps.environments.recordResult(env.id, { at: Date.now(), ok: last.ok, summary });
    deps.log.info(
      'request',
      `GET ${last.url} → ${last.status} ${last.statusText} (${plural(listing.items.length, 'item', 'items')}, ${plural(listing.pages.length, 'page', 'pages')}${listing.stoppedBecause ? `; stopped: ${listing.stoppedBecause}` : ''})`,
    );
    return listing;
  } catch (err) {
    if (isMobilityError(err) && err.code !== 'CANCELLED') {
      deps.environments.recordResult(env.id, {
        at: Date.now(),
        ok: false,
        summary: err.code
          .replace(/^HTTP_/, '')
          .toLowerCase()
          .replace(/_/g, ' '),
      });
      // A failed next page is reported inside the panel, which keeps the rows it has.
      if (!options.from) deps.results.showRequestError({ environment: env, error: err });
    }
    throw err;
  }
}

/**
 * The pages a cancelled listing had received (all answered 2xx, or it would have stopped), with the
 * next page's URL when the last one had a link on the same origin. Undefined when none had arrived.
 */
function partialListing(pages: HttpExchange[]): VehicleListing | undefined {
  if (!pages.length) return undefined;
  const listing: VehicleListing = {
    pages: [...pages],
    items: [],
    stoppedBecause: vscode.l10n.t('cancelled after {0}', plural(pages.length, 'page', 'pages')),
  };
  for (const page of pages) {
    const list = vehicleListOf(page.body);
    if (!list) continue;
    listing.listKey ??= list.key;
    for (const item of list.items) listing.items.push(item);
  }
  const last = pages[pages.length - 1];
  const next = last.ok ? nextLinkOf(last.body) : undefined;
  if (next) {
    const nextUrl = new URL(next, last.url);
    if (nextUrl.origin === new URL(last.url).origin) listing.nextUrl = nextUrl.href;
  }
  return listing;
}
