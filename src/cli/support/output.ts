import type { ApiResult, HttpExchange, VehicleListing } from '../../core/http';
import type { ConformanceReport } from '../../core/conformance';
import type { ApiKind, Environment } from '../../core/environment';
import { API_LABELS, normaliseBaseUrl } from '../../core/environment';
import type { CatalogueEndpoint } from '../../core/mds';
import { resultConformance } from '../../results/requests/conformance';
import type { Credential, DecodedToken, LintFinding, SignatureCheck } from '../../core/auth';
import { stringifyAsWritten } from '../../core/auth';
import { clockSkewOf, keyIdDigest } from '../../core/clock';
import type { FileClockStore } from '../../core/clock';
import { pagesMasker, scrubSent } from '../../results/tokens/tokenPreview';
import { explainRefusal, refusalLines } from '../../results/tokens/refusalView';
import type { CliIo } from './cliIo';
import { formatBytes, plural } from '../../shared/format';
import { modeOf } from './options';
import { listingLine } from '../../results/requests/listingView';
import { readVehicle } from '../../results/requests/vehicleReader';
import { resourceTableOf } from '../../results/requests/resultView';
import type { DataTableView } from '../../shared/dataTable';
import { cellText, visibleDataColumns } from '../../shared/dataTable';

/**
 * Control characters that a terminal may act on: C0 (but tab and newline), DEL, C1 (U+009B is a
 * CSI on its own), and the bidirectional marks and overrides that reorder what a reader sees.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const TERMINAL_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text as it may reach a terminal: every control character becomes a visible `\uXXXX`. In JSON
 * output such characters can only stand inside strings, where `\uXXXX` means the same character,
 * so JSON stays valid and equal. Everything the CLI prints goes through this (see `runCli`).
 */
export function escapeForTerminal(text: string): string {
  return text.replace(TERMINAL_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The text output of `decode`: header, payload, times, signature and findings. */
export function formatDecoded(token: DecodedToken, findings: LintFinding[], signature: SignatureCheck | undefined): string {
  // Numbers as the token writes them (`"exp": 1e400`), where JSON.stringify would show what JSON.parse made of them (`null`).
  const numbers = (part: 'header' | 'payload') => (token.writtenNumbers ?? []).filter((n) => n.part === part);
  const lines = ['Header', indent(stringifyAsWritten(token.header, numbers('header'), 2)), 'Payload', indent(stringifyAsWritten(token.payload, numbers('payload'), 2)), 'Times'];
  for (const name of ['iat', 'nbf', 'exp'] as const) {
    const t = token.times[name];
    if (t) lines.push(`  ${name.padEnd(4)} ${t.iso}  (${t.relative})`);
  }
  if (token.lifetimeSeconds !== undefined) lines.push(`  lifetime ${token.lifetimeSeconds} s`);
  if (!signature) lines.push('Signature: not verified (give --public-key to check it)');
  else if (signature.state === 'verified') lines.push('Signature: verified');
  else lines.push(`Signature: FAILED: ${signature.reason}`);
  lines.push(findings.length ? 'Findings' : 'Findings: none');
  for (const f of findings) lines.push(`  ${f.severity.padEnd(7)} [spec ${f.rule}] ${f.message}`);
  return lines.join('\n');
}

/** One line: status, the MDS error body with the rule a sandbox names, and what to try. */
export function describeFailure(page: HttpExchange): string {
  // The server's words, with the request's kid masked should it echo it (spec 5.7).
  const said = (text: string, max: number) => fromServer(scrubSent(text, page.token), max);
  const parts = [`${page.status} ${said(page.statusText, 80)} from ${page.url}`.replace(/ {2}/, ' ')];
  if (page.mdsError) {
    const { error, error_description: description, error_details: details } = page.mdsError;
    parts.push(said(`${error}${description ? `: ${description}` : ''}`, 300));
    if (details?.length) parts.push(`(${details.slice(0, 5).map((d) => said(d, 200)).join('; ')}${details.length > 5 ? `; ${details.length - 5} more` : ''})`);
  } else if (page.bodyProblem) {
    parts.push(`— ${said(page.bodyProblem, 300)}`);
  } else if (page.bodyKind === 'text' && typeof page.body === 'string') {
    parts.push(said(page.body, 200));
  }
  const hint: Record<number, string> = {
    401: 'The token was refused: run `mobility-api decode` on a token from the same flags to see what is wrong.',
    403: 'The credential is valid but not allowed here: check the environment and the credential type.',
    404: 'Check the base URL and the API (--api).',
    406: 'The server does not support the requested version: check the Accept header.',
    429: 'Too many requests: wait and try again.',
    500: 'The server failed to answer: try again later, and if it persists, tell the API provider the time of the request.',
    502: 'A gateway in front of the server failed: try again later.',
    503: 'The service is unavailable for now: try again later.',
    504: 'A gateway in front of the server timed out: try again later.',
  };
  if (hint[page.status]) parts.push(`— ${hint[page.status]}`);
  if (page.retryAfterSeconds !== undefined) parts.push(`The server asks to wait ${page.retryAfterSeconds} s before trying again (Retry-After).`);
  return parts.join(' ');
}

/**
 * After a 401 or 403: the likely cause and the evidence (see `explainRefusal`), each line made safe
 * for a terminal; the key's mark is read from the shared clock when `store` is given.
 */
export async function formatRefusal(page: HttpExchange, environment: Environment, credential: Credential | undefined, store?: Pick<FileClockStore, 'readMarks'>): Promise<string | undefined> {
  if (page.status !== 401 && page.status !== 403) return undefined;
  let keyMark: number | undefined;
  const kid = page.token?.header.kid;
  if (store && kid !== undefined) {
    // Best effort: an unreadable state folder leaves the ordering evidence unknown, it does not fail the run.
    keyMark = await store.readMarks().then((marks) => marks[keyIdDigest(kid)], () => undefined);
  }
  const explanation = explainRefusal(page, { audience: normaliseBaseUrl(environment.baseUrl, environment.name), api: environment.api, credentialType: credential?.type, keyMark, now: Date.now() });
  return explanation ? refusalLines(explanation).map((line) => fromServerLine(line)).join('\n') : undefined;
}

/** A warning when this computer's clock is off the server's by more than a few seconds. */
export function clockWarning(page: HttpExchange | undefined): string | undefined {
  const skew = page ? clockSkewOf(page) : undefined;
  return skew ? `warning: ${skew.message}` : undefined;
}

/** Prints the clock warning and, after a 401 or 403, the explanation, on stderr. */
export async function printRefusalAndClock(page: HttpExchange | undefined, environment: Environment, credential: Credential | undefined, io: CliIo, store?: Pick<FileClockStore, 'readMarks'>): Promise<void> {
  if (!page) return;
  const warning = clockWarning(page);
  if (warning) io.err(`mobility-api: ${warning}`);
  const refusal = await formatRefusal(page, environment, credential, store);
  if (refusal) io.err(refusal);
}

/** One line of an explanation: control characters and tokens out, length kept. */
function fromServerLine(text: string): string {
  return `${/^ */.exec(text)?.[0] ?? ''}${fromServer(text, 2000)}`;
}

/**
 * Server-sent text as it may be printed: one line, at most `max` characters, without control characters (a hostile
 * server could otherwise send terminal escape sequences). Otherwise as the server sent it: the caller hides our own
 * secrets in it by value (`scrubSent` with the request's token and kid) where the server may echo them.
 */
export function fromServer(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').replace(/[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu, '?').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/**
 * A server's answer as `--json` prints it: as it came, but for our own secrets the server may echo (each page's
 * token, the key id), hidden by value.
 */
export function answerJson(value: unknown, pages: readonly Pick<HttpExchange, 'token'>[]): string {
  const mask = pagesMasker(pages);
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? mask(v) : v), 2);
}

export function mergedBody(listing: VehicleListing): Record<string, unknown> {
  return { pages: listing.pages.length, [listing.listKey ?? 'vehicles']: listing.items, ...(listing.nextUrl ? { next: listing.nextUrl } : {}), ...(listing.stoppedBecause ? { stopped_because: listing.stoppedBecause } : {}) };
}

export function formatListing(listing: VehicleListing, maxRows = 20): string {
  const first = listing.pages[0];
  const last = listing.pages[listing.pages.length - 1];
  const bytes = listing.pages.reduce((n, p) => n + p.bytes, 0);
  const noun: [string, string] = listing.listKey === 'vehicles_status' ? ['vehicle status', 'vehicle statuses'] : ['vehicle', 'vehicles'];
  const summary = listingLine({ status: last.status, statusText: last.statusText, itemCount: listing.items.length, pageCount: listing.pages.length, moreExist: !!listing.nextUrl, noun });
  const lines = [`GET ${first.url}`, `${summary} · ${formatBytes(bytes)} · first byte after ${first.timings.ttfbMs.toFixed(0)} ms`];
  const problem = listing.pages.find((p) => p.bodyProblem)?.bodyProblem;
  if (problem) lines.push(`— ${fromServer(problem, 300)}`);
  const mask = pagesMasker(listing.pages);
  const rows = listing.items.slice(0, maxRows).map((item) => vehicleRow(item, mask));
  if (rows.length) {
    const header = ['device_id', 'vehicle_id', 'type', 'propulsion', 'state', 'battery'];
    // Columns that no shown row fills (a status listing has no vehicle_id) are left out.
    const shown = header.map((_, i) => rows.some((r) => r[i] !== ''));
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const fmt = (cells: string[]) => cells.filter((_, i) => shown[i]).map((c, i) => c.padEnd(widths.filter((_, j) => shown[j])[i])).join('  ').trimEnd();
    lines.push('', fmt(header), ...rows.map(fmt));
    if (listing.items.length > rows.length) lines.push(`… ${listing.items.length - rows.length} more (use --json for all)`);
  }
  if (listing.nextUrl) lines.push('', `More pages: ${listing.stoppedBecause ?? 'use --all-pages to fetch them all'} (next: ${fromServer(mask(listing.nextUrl), 2000)})`);
  return lines.join('\n');
}

/** A table row of one vehicle, read by the same reader as the panel's table. */
function vehicleRow(item: unknown, mask: (text: string) => string): string[] {
  const v = readVehicle(item);
  const cell = (text: string) => fromServer(mask(text), 80);
  return [cell(v.deviceId), cell(v.vehicleId), cell(v.vehicleType), cell(v.propulsion), cell(v.state), Number.isNaN(v.batteryPercent) ? '' : `${v.batteryPercent}%`];
}

/** The first `maxRows` rows of a resource table, as the panel shows them (its visible columns and cell texts). */
function tableLines(table: DataTableView, maxRows: number, mask: (text: string) => string): string[] {
  const columns = visibleDataColumns(table);
  const n = Math.min(maxRows, table.count);
  const rows = Array.from({ length: n }, (_, r) => columns.map((c) => fromServer(mask(cellText(c, r)), 60)));
  const widths = columns.map((c, i) => Math.max(c.label.length, ...rows.map((row) => row[i].length)));
  const fmt = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd();
  const out = [fmt(columns.map((c) => c.label)), ...rows.map(fmt)];
  if (table.count > n) out.push(`… ${table.count - n} more (use --json for all)`);
  return out;
}

export function indent(text: string): string {
  return text.replace(/^/gm, '  ');
}

/** What an outcome means, in one line, for the CLI's summary. */
const OUTCOME_TEXT: Record<ApiResult['outcome'], string> = {
  items: '',
  empty: 'answered with no items (a processed hour or listing that is empty)',
  body: 'answered with a body that holds no item list',
  not_processed: 'not processed yet (202): try again later',
  not_found: 'not found (404): no such resource, or an hour outside the data the provider serves',
  error: 'failed',
};

/** `GET <url>`, the summary line, what the outcome means, and the first items. */
export function formatResult(result: ApiResult, itemsKey = result.itemsKey, maxRows = 20): string {
  const first = result.pages[0];
  const last = result.pages[result.pages.length - 1];
  if (!last) return `GET ${result.url}: no answer`;
  if (itemsKey === 'vehicles' || itemsKey === 'vehicles_status') {
    const listing: VehicleListing = { pages: result.pages, items: result.items, listKey: itemsKey, nextUrl: result.nextUrl, stoppedBecause: result.stoppedBecause };
    return formatListing(listing, maxRows);
  }
  // Trips, events, telemetry and stops: the panel's readers and columns, so both show the same values.
  const resourceTable = last.bodyKind === 'csv' ? undefined : resourceTableOf({ ...result, itemsKey });
  const noun: [string, string] = itemsKey ? [singular(itemsKey), itemsKey] : ['item', 'items'];
  const bytes = result.pages.reduce((n, p) => n + p.bytes, 0);
  const summary = listingLine({ status: last.status, statusText: last.statusText, itemCount: result.items.length, pageCount: result.pages.length, moreExist: !!result.nextUrl, noun });
  const lines = [`GET ${first.url}`, `${summary} · ${formatBytes(bytes)} · first byte after ${first.timings.ttfbMs.toFixed(0)} ms`];
  const meaning = OUTCOME_TEXT[result.outcome];
  if (result.outcome === 'error' || result.outcome === 'not_found') lines.push(describeFailure(last));
  else if (meaning) lines.push(meaning + (result.retryAfterSeconds !== undefined ? ` (Retry-After: ${result.retryAfterSeconds} s)` : ''));
  const mask = pagesMasker(result.pages);
  if (last.bodyProblem) lines.push(`— ${fromServer(mask(last.bodyProblem), 300)}`);
  if (last.bodyKind === 'csv' && last.columns && last.rows) {
    lines.push('', last.columns.map((c) => fromServer(mask(c), 40)).join(' | '));
    for (const row of last.rows.slice(0, maxRows)) lines.push(last.columns.map((c) => fromServer(mask(String(row[c] ?? '')), 40)).join(' | '));
    if (last.rows.length > maxRows) lines.push(`… ${last.rows.length - maxRows} more rows (use --json for all)`);
  } else if (resourceTable && resourceTable.count) {
    lines.push('', ...tableLines(resourceTable, maxRows, mask));
  } else if (result.items.length) {
    lines.push('');
    for (const item of result.items.slice(0, maxRows)) lines.push(fromServer(mask(JSON.stringify(item)), 160));
    if (result.items.length > maxRows) lines.push(`… ${result.items.length - maxRows} more (use --json for all)`);
  }
  if (result.nextUrl) lines.push('', `More pages: ${result.stoppedBecause ?? 'use --all-pages to fetch them all'} (next: ${fromServer(mask(result.nextUrl), 2000)})`);
  return lines.join('\n');
}

function singular(key: string): string {
  if (key === 'telemetry') return 'telemetry point';
  if (key === 'vehicles_status') return 'vehicle status';
  return key.replace(/s$/, '');
}

/** Every page's items under the result's key, for `--json --all-pages`. */
export function mergedResultBody(result: ApiResult): Record<string, unknown> {
  const pagesOf = result.pages.length;
  const last = result.pages[result.pages.length - 1];
  const items = last?.bodyKind === 'csv' ? (last.rows ?? []) : result.items;
  return {
    outcome: result.outcome,
    pages: pagesOf,
    [result.itemsKey ?? 'items']: items,
    ...(result.nextUrl ? { next: result.nextUrl } : {}),
    ...(result.stoppedBecause ? { stopped_because: result.stoppedBecause } : {}),
    ...(result.retryAfterSeconds !== undefined ? { retry_after_seconds: result.retryAfterSeconds } : {}),
  };
}

/** The conformance of a result, or a report saying why there is none. */
export function conformanceOf(result: ApiResult, endpointId: string | undefined, mode: string | undefined): ConformanceReport | undefined {
  return resultConformance(result, endpointId, modeOf(mode));
}

/** A conformance report as lines: the verdict, then each rule with its count and a few examples. */
export function formatConformance(report: ConformanceReport | undefined): string {
  if (!report) return 'MDS 2.0: not checked (not the answer of an MDS 2.0 endpoint, or no body to check)';
  const source = `official schemas ${report.schemaSource.repository}@${report.schemaSource.commit.slice(0, 7)}, mode ${report.mode}`;
  const lines = [report.conforms
    ? `MDS 2.0 (${report.endpoint}): conforms — ${plural(report.itemsChecked, 'item')} checked against the ${source}`
    : `MDS 2.0 (${report.endpoint}): does not conform — ${plural(report.findingCount, 'finding')} in ${plural(report.itemsWithFindings, 'item')} of ${report.itemsChecked} (${source})`];
  for (const rule of report.rules) {
    lines.push(`  ${String(rule.count).padStart(6)} × ${fromServer(rule.message, 200)} at ${rule.where || '/'} [${rule.keyword}]`);
    for (const example of rule.examples.slice(0, 3)) lines.push(`           ${example.path || '/'}: ${fromServer(example.value, 120)}`);
  }
  if (report.omittedFindings) lines.push(`  … ${report.omittedFindings} more findings of other rules`);
  if (report.schemaBugs.length) {
    lines.push(`  Schema problems (known bugs of the official schema, not the provider's): ${report.schemaBugs.map((r) => `${r.schemaBug ?? r.keyword} ×${r.count}`).join(', ')}`);
  }
  return lines.join('\n');
}

/** The catalogue of one API, one endpoint per line with its parameters and their defaults. */
export function formatCatalogue(api: ApiKind, endpoints: readonly CatalogueEndpoint[], nowMs: number): string {
  const lines = [`${API_LABELS[api]}:`];
  for (const e of endpoints) {
    const flags = [e.itemsKey ? `items in "${e.itemsKey}"` : e.body === 'csv' ? 'CSV' : '', e.paginates ? 'paginates' : '', e.hourEndpoint ? 'one UTC hour per request' : '', e.beta ? 'beta' : ''].filter(Boolean).join(', ');
    lines.push(`  ${e.id.padEnd(18)} GET ${e.pathTemplate}${flags ? `  (${flags})` : ''}`);
    for (const p of e.parameters) {
      const fallback = p.defaultValue ? `; default ${p.defaultValue(nowMs)} (${p.defaultDescription ?? 'default'})` : '';
      lines.push(`  ${''.padEnd(18)}   ${p.required ? 'required' : 'optional'} ${p.in} ${p.name}: ${p.formatDescription}${fallback}`);
    }
  }
  return lines.join('\n');
}

/** A query's answer as an aligned text table (nested values as JSON), with its row count. */
export function formatQueryAnswer(answer: { columns: { name: string }[]; rows: Record<string, unknown>[] }): string {
  const cell = (value: unknown): string => (value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value));
  const names = answer.columns.map((c) => c.name);
  const cells = answer.rows.map((row) => names.map((name) => cell(row[name])));
  const widths = names.map((name, i) => Math.max(name.length, ...cells.map((r) => r[i].length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i])).join('  ').trimEnd();
  return [line(names), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line), `(${answer.rows.length} ${answer.rows.length === 1 ? 'row' : 'rows'})`].join('\n');
}
