import * as vscode from 'vscode';
import type { Environment } from '../../core/environment';
import type { ApiResult, HttpExchange } from '../../core/http';
import { curlCommand, outcomeOf } from '../../core/http';
import { isCancelled, isMobilityError, shellQuote } from '../../core/base';
import type { Credential } from '../../core/auth';
import { requestHeadersFor, requestUrl } from '../../core/environment';
import { itemsOf, nextLinkOf } from '../../core/mds';
import { plural } from '../../shared/format';
import type { CommandDeps, CommandOutcome } from '../platform/commandDeps';
import { rememberEndpointValues } from './endpointInput';
import { resolveCredential } from '../environments/pickers';
import { refusalContextFor } from './refusalContext';
import type { PreparedRequest } from './preparedRequests';

export type { PreparedRequest } from './preparedRequests';

/** What Send Request and the request files return: how the request ended, never a token. */
export type RequestRunOutcome = CommandOutcome<{
  environmentId: string;
  title: string;
  url: string;
  outcome: ApiResult['outcome'];
  status: number;
  items: number;
  pages: number;
  nextUrl?: string;
  stoppedBecause?: string;
  retryAfterSeconds?: number;
  endpointId?: string;
  values?: Record<string, string>;
}>;

/** The last result a request of this kind showed, for "Load All Pages" from the palette. */
interface ActiveResult {
  prepared: PreparedRequest;
  credential: Credential;
  result: ApiResult;
  credentialLabel: string;
}

/**
 * Sends prepared requests into the results panel: progress with Cancel, `loadAllPages` and
 * `maxPages`, a fresh token per request and page, and the panel's callbacks (next page, all
 * pages, curl with a fresh token, run again). One per window.
 */
export class RequestRunner {
  private active: ActiveResult | undefined;

  constructor(private readonly deps: CommandDeps) {}

  /** Sends `prepared` and shows the result; Cancel keeps the pages already loaded. */
  async send(prepared: PreparedRequest): Promise<RequestRunOutcome> {
    const deps = this.deps;
    const env = prepared.environment;
    // Headers that cannot be sent (an environment's Authorization among them) are refused before a credential is asked for.
    requestHeadersFor(env, prepared.request.headers);
    const { credential, info } = await resolveCredential(deps, env);
    if (prepared.authorization !== undefined) {
      void vscode.window.showWarningMessage(
        vscode.l10n.t(
          'This request sends its own Authorization as written (# @authorization as-is), not a fresh token. A token that was used before is refused (spec 5.1 rule 4): remove the header and the line, and a fresh token is signed for every send.',
        ),
      );
    }
    const result = await this.fetch(prepared, credential, { allPages: deps.settings.loadAllPages }, prepared.title);
    if (prepared.remember)
      await rememberEndpointValues(
        deps.context.workspaceState,
        env.id,
        prepared.remember.endpointId,
        prepared.remember.values,
      );
    const active: ActiveResult = { prepared, credential, result, credentialLabel: info.label };
    this.active = active;
    await this.show(active);
    this.tellOutcome(prepared, result);
    const last = result.pages[result.pages.length - 1];
    return {
      ok: true,
      environmentId: env.id,
      title: prepared.title,
      url: result.url,
      outcome: result.outcome,
      status: last.status,
      items: result.items.length,
      pages: result.pages.length,
      nextUrl: result.nextUrl,
      stoppedBecause: result.stoppedBecause,
      retryAfterSeconds: result.retryAfterSeconds,
      endpointId: prepared.request.endpointId,
      values: prepared.remember?.values,
    };
  }

  /** "Load All Pages" for the result shown last: every remaining page with progress and Cancel, then the whole result shown. */
  async loadAllPages(): Promise<CommandOutcome> {
    const active = this.active;
    if (!active?.result.nextUrl) {
      void vscode.window.showInformationMessage(
        vscode.l10n.t('The last result has no further page to load. Send a request first (Send Request…).'),
      );
      return { ok: false, code: 'NO_NEXT_PAGE', message: 'no further page' };
    }
    const more = await this.fetch(
      active.prepared,
      active.credential,
      { allPages: true, from: active.result.nextUrl },
      vscode.l10n.t('All pages of {0}', active.prepared.title),
    );
    active.result = merged(active.result, more);
    await this.show(active);
    return {
      ok: true,
      pages: active.result.pages.length,
      items: active.result.items.length,
      nextUrl: active.result.nextUrl,
      stoppedBecause: active.result.stoppedBecause,
    };
  }

  private async show(active: ActiveResult): Promise<void> {
    const { prepared, credential } = active;
    const env = prepared.environment;
    const deps = this.deps;
    const refusal = await refusalContextFor(deps, credential, active.result.pages);
    deps.results.showResult({
      environment: env,
      result: active.result,
      title: prepared.title,
      endpointId: prepared.request.endpointId,
      codeSource: { kind: 'http', prepared },
      refusal,
      ...(prepared.assertions ? { assertions: prepared.assertions } : {}),
      credentialLabel: active.credentialLabel,
      loadNextPage: async (nextUrl) => {
        const more = await this.fetch(
          prepared,
          credential,
          { allPages: false, from: nextUrl },
          vscode.l10n.t('Next page of {0}', prepared.title),
        );
        // The panel appends the page; "Load All Pages" goes on from the new end.
        if (this.active === active) active.result = merged(active.result, more);
        return more;
      },
      loadAllPages: async (nextUrl, onPage, signal) => {
        const more = await deps.clients.get().request(env, credential, prepared.request, {
          from: nextUrl,
          allPages: true,
          maxPages: deps.settings.maxPages,
          signal,
          onPage,
          authorization: prepared.authorization,
        });
        this.record(env, more);
        if (this.active === active) active.result = merged(active.result, more);
        return more;
      },
      curlCommand: () => this.curl(prepared, credential),
      runAgain: () => this.send(prepared),
    });
  }

  /** A ready-to-run curl command with a freshly signed token and the same headers (Accept included) as the request. */
  private async curl(prepared: PreparedRequest, credential: Credential): Promise<string> {
    const env = prepared.environment;
    const url = requestUrl(env, prepared.request.path, prepared.request.query);
    const headers = requestHeadersFor(env, prepared.request.headers);
    if (prepared.authorization !== undefined)
      return `${curlCommand(url, headers)} -H ${shellQuote(`Authorization: ${prepared.authorization}`)}`;
    const issued = await this.deps.clients.issuer.issue(credential, env);
    this.deps.tokenHistory.record(issued, 'curl');
    return curlCommand(url, headers, { token: issued.token });
  }

  /** 202 and 404 said in words, naming what was asked for: the panel shows the status, this says what it means. */
  private tellOutcome(prepared: PreparedRequest, result: ApiResult): void {
    if (result.outcome === 'not_processed') {
      const wait =
        result.retryAfterSeconds !== undefined ? vscode.l10n.t(' Retry after {0} s.', result.retryAfterSeconds) : '';
      void vscode.window.showInformationMessage(
        vscode.l10n.t(
          '{0}: not processed yet (202 Accepted): the provider has not finished this hour.{1}',
          prepared.title,
          wait,
        ),
      );
    } else if (result.outcome === 'not_found') {
      void vscode.window.showInformationMessage(
        vscode.l10n.t(
          '{0}: not found (404): an hour not yet past or without operations, or an unknown id or path.',
          prepared.title,
        ),
      );
    }
  }

  /**
   * The request with a progress notification that has Cancel: every page up to `maxPages` when
   * `allPages`, else one. Cancel after some pages keeps them, with the next page's URL.
   */
  private async fetch(
    prepared: PreparedRequest,
    credential: Credential,
    options: { allPages: boolean; from?: string },
    title: string,
  ): Promise<ApiResult> {
    const deps = this.deps;
    const env = prepared.environment;
    const maxPages = deps.settings.maxPages;
    const received: HttpExchange[] = [];
    let cancelled = false;
    try {
      let result: ApiResult;
      try {
        result = await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title, cancellable: true },
          (progress, cancel) => {
            const abort = new AbortController();
            cancel.onCancellationRequested(() => {
              cancelled = true;
              abort.abort();
            });
            return deps.clients.get().request(env, credential, prepared.request, {
              from: options.from,
              allPages: options.allPages,
              maxPages,
              authorization: prepared.authorization,
              signal: abort.signal,
              onPage: (page, n) => {
                received.push(page);
                progress.report({
                  // "page 1 of at most 1000" would puzzle on the many endpoints that answer in one page.
                  message:
                    options.allPages && n > 1
                      ? vscode.l10n.t('page {0} of at most {1}: {2} {3}', n, maxPages, page.status, page.statusText)
                      : `${page.status} ${page.statusText}`,
                });
              },
            });
          },
        );
      } catch (err) {
        const partial =
          cancelled && isCancelled(err) ? partialResult(received, prepared.request.itemsKey, maxPages) : undefined;
        if (!partial) throw err;
        result = partial;
      }
      this.record(env, result);
      return result;
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
        // A failed next page is reported inside the panel, which keeps the pages it has.
        if (!options.from) deps.results.showRequestError({ environment: env, error: err, url: safeUrl(prepared) });
      }
      throw err;
    }
  }

  /** Token history, the tree's last result and the log line of a result. */
  private record(env: Environment, result: ApiResult): void {
    const deps = this.deps;
    for (const page of result.pages) {
      if (page.token)
        deps.tokenHistory.record(page.token, 'request', {
          url: page.url,
          status: page.status,
          statusText: page.statusText,
        });
    }
    const last = result.pages[result.pages.length - 1];
    if (!last) return;
    const counted = plural(result.items.length, 'item', 'items');
    const summary = last.ok
      ? `${last.status} ${last.statusText} · ${result.nextUrl ? vscode.l10n.t('{0} so far', counted) : counted}`
      : `${last.status} ${last.statusText}${last.mdsError ? ` · ${last.mdsError.error}` : ''}`;
    deps.environments.recordResult(env.id, { at: Date.now(), ok: last.ok, summary });
    deps.log.info(
      'request',
      `GET ${last.url} → ${last.status} ${last.statusText} (${result.outcome}, ${counted}, ${plural(result.pages.length, 'page', 'pages')}${result.stoppedBecause ? `; stopped: ${result.stoppedBecause}` : ''})`,
    );
  }
}

function safeUrl(prepared: PreparedRequest): string | undefined {
  try {
    return requestUrl(prepared.environment, prepared.request.path, prepared.request.query);
  } catch {
    return undefined;
  }
}

/** `first` followed by the pages of `more` (a continuation from `first.nextUrl`). */
function merged(first: ApiResult, more: ApiResult): ApiResult {
  const result: ApiResult = {
    ...first,
    pages: [...first.pages, ...more.pages],
    items: [...first.items, ...more.items],
    outcome: more.outcome,
  };
  result.itemsKey ??= more.itemsKey;
  result.columns ??= more.columns;
  if (more.nextUrl) result.nextUrl = more.nextUrl;
  else delete result.nextUrl;
  if (more.stoppedBecause) result.stoppedBecause = more.stoppedBecause;
  else delete result.stoppedBecause;
  if (more.retryAfterSeconds !== undefined) result.retryAfterSeconds = more.retryAfterSeconds;
  return result;
}

/** The pages a cancelled request had received, as a result with the next page's URL; undefined when none had arrived. */
function partialResult(pages: HttpExchange[], itemsKey: string | undefined, maxPages: number): ApiResult | undefined {
  if (!pages.length) return undefined;
  const result: ApiResult = {
    outcome: 'empty',
    url: pages[0].url,
    pages: [...pages],
    items: [],
    stoppedBecause: vscode.l10n.t(
      'cancelled after {0} of at most {1}',
      plural(pages.length, 'page', 'pages'),
      maxPages,
    ),
  };
  let found = false;
  for (const page of pages) {
    if (page.bodyKind === 'csv') {
      found = true;
      result.columns ??= page.columns;
      result.items.push(...(page.rows ?? []));
      continue;
    }
    const list = itemsOf(page.body, result.itemsKey ?? itemsKey);
    if (!list) continue;
    found = true;
    result.itemsKey ??= list.key;
    for (const item of list.items) result.items.push(item);
  }
  const last = pages[pages.length - 1];
  const next = last.ok ? nextLinkOf(last.body) : undefined;
  if (next && URL.canParse(next, last.url)) {
    const nextUrl = new URL(next, last.url);
    if (nextUrl.origin === new URL(last.url).origin) result.nextUrl = nextUrl.href;
  }
  result.outcome = outcomeOf(last, found, result.items.length);
  return result;
}
