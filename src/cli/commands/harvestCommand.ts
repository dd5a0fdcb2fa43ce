import { ApiClient } from '../../core/http';
import { isCancelled, MobilityError } from '../../core/base';
import type { HarvestProgress, HarvestSummary, HourStatus } from '../../core/harvest';
import path from 'node:path';
import type { SnapshotManifest } from '../../core/harvest';
import { harvestHours, harvestSnapshot, reportMonthsOf } from '../../core/harvest';
import type { MdsHourEndpointId } from '../../core/mds';
import { takeUserAuthorization } from '../../core/environment';
import { formatBytes, plural } from '../../shared/format';
import type { CliIo } from '../support/cliIo';
import {
  CREDENTIAL_OPTIONS,
  environmentFrom,
  issuerFrom,
  loadCredential,
  modeOf,
  parse,
  parseHeaders,
  positiveNumber,
  wholeNumber,
} from '../support/options';
import { escapeForTerminal, fromServer } from '../support/output';
import { printUsage } from '../support/usage';

/** The options of `harvest`: the credential, where from, which hours, where to, and the retry bounds. */
export const HARVEST_OPTIONS = {
  ...CREDENTIAL_OPTIONS,
  'base-url': { type: 'string' },
  header: { type: 'string', multiple: true },
  timeout: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  out: { type: 'string' },
  validate: { type: 'boolean' },
  mode: { type: 'string' },
  'max-202-attempts': { type: 'string' },
  'max-202-wait': { type: 'string' },
  'max-retries': { type: 'string' },
  json: { type: 'boolean' },
  snapshot: { type: 'boolean' },
} as const;

/** The names users type, and the catalogue endpoint each harvests. */
const ENDPOINTS: Readonly<Record<string, MdsHourEndpointId>> = {
  trips: 'trips',
  telemetry: 'telemetry',
  events: 'events_historical',
  events_historical: 'events_historical',
};

/** The subfolder each endpoint gets when several are harvested at once. */
const SUBFOLDER: Readonly<Record<MdsHourEndpointId, string>> = {
  trips: 'trips',
  events_historical: 'events',
  telemetry: 'telemetry',
};

/** Reads `trips,events,telemetry` (one name or several, comma-separated): the endpoints, each once, in the order given. */
function endpointsOf(positionals: string[]): MdsHourEndpointId[] {
  const names = positionals.length === 1 ? (positionals[0] ?? '').split(',').map((n) => n.trim()) : [];
  if (!names.length || names.some((n) => !Object.hasOwn(ENDPOINTS, n))) {
    throw new MobilityError(
      'USAGE',
      `harvest takes an endpoint, or several separated by commas: trips, events, telemetry (e.g. trips,events,telemetry)${positionals.length ? `, not "${positionals.join(' ')}"` : ''}.`,
    );
  }
  const endpoints = names.map((n) => ENDPOINTS[n]);
  const twice = endpoints.find((e, i) => endpoints.indexOf(e) !== i);
  if (twice)
    throw new MobilityError(
      'USAGE',
      `harvest: ${SUBFOLDER[twice]} is named twice in "${positionals[0]}"; name each endpoint once.`,
    );
  return endpoints;
}

/** Exit code when Ctrl-C stopped the harvest (128 + SIGINT, as shells report it). */
export const EXIT_INTERRUPTED = 130;

/** Errors that end a harvest that was under way (exit 1, not 2: the input was not wrong). */
const RUN_STOPPERS = ['HARVEST_REFUSED', 'HARVEST_WRITE_FAILED', 'HARVEST_FOLDER_IN_USE'];

/**
 * `mobility-api harvest trips|events|telemetry --from <hour> --to <hour> --out <dir>`: every hour of
 * the range, one request per hour and page with a fresh token, into one NDJSON file per hour and a
 * manifest. Exit 0: every hour has items or is empty; 1: some hour is not (404, still 202, failed),
 * or the run was stopped by a refusal, the disk or another harvest; 2: bad input; 130: Ctrl-C.
 */
export async function harvestCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, HARVEST_OPTIONS, true);
  if (values.help) return printUsage(io);
  const endpoints = endpointsOf(positionals);
  const several = endpoints.length > 1;
  for (const flag of ['from', 'to', 'out'] as const) {
    if (!values[flag])
      throw new MobilityError(
        'USAGE',
        `harvest needs --${flag} <${flag === 'out' ? 'folder' : 'YYYY-MM-DDTHH'}>${flag === 'out' ? ': the folder for the hour files and manifest.json' : ', a UTC hour such as 2024-11-05T14'}.`,
      );
  }
  const mode = modeOf(values.mode);
  const retry = {
    ...(values['max-202-attempts'] !== undefined
      ? { max202Attempts: wholeNumber(values['max-202-attempts'], '--max-202-attempts', 1, 1000) }
      : {}),
    ...(values['max-202-wait'] !== undefined
      ? { max202WaitSeconds: wholeNumber(values['max-202-wait'], '--max-202-wait', 0, 86_400) }
      : {}),
    ...(values['max-retries'] !== undefined
      ? { maxRetries: wholeNumber(values['max-retries'], '--max-retries', 0, 1000) }
      : {}),
  };
  // A fixed token cannot serve many requests: an Authorization is refused, with no as-is option.
  const { headers } = takeUserAuthorization(parseHeaders(values.header ?? [], 'mds'), {
    kind: 'cli',
    oneRequest: false,
  });
  const environment = environmentFrom(values['base-url'], '--base-url', 'mds', values, headers);
  const credential = loadCredential(values, io, 'mds');
  const timeoutMs = values.timeout === undefined ? undefined : positiveNumber(values.timeout, '--timeout') * 1000;
  const { issuer, queue } = issuerFrom(values, io);
  const client = new ApiClient({ issuer, queue, timeoutMs });

  const stop = new AbortController();
  let signals = 0;
  const onSignal = () => {
    signals++;
    if (signals === 1) {
      stop.abort();
      io.statusLine?.('');
      io.err(
        'mobility-api: stopping after the current request; the folder stays consistent and the same command resumes (Ctrl-C again to quit at once).',
      );
    } else {
      process.exit(EXIT_INTERRUPTED);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const progress = new ProgressPrinter(io);
  const outDir = values.out as string;
  const summaries: HarvestSummary[] = [];
  let failed = false;
  let snapshot: SnapshotManifest | undefined;
  try {
    for (const endpoint of endpoints) {
      if (stop.signal.aborted) break;
      // Several endpoints: each into its own subfolder, a harvest as one endpoint's (resumable on its own).
      const dir = several ? path.join(outDir, SUBFOLDER[endpoint]) : outDir;
      if (several) io.err(`mobility-api: ${SUBFOLDER[endpoint]} into ${escapeForTerminal(dir)}`);
      try {
        summaries.push(
          await harvestHours({
            client,
            environment,
            credential,
            endpoint,
            from: values.from as string,
            to: values.to as string,
            outDir: dir,
            validate: values.validate === true,
            ...(mode ? { mode } : {}),
            retry,
            signal: stop.signal,
            onProgress: (p) => progress.show(p),
          }),
        );
        progress.end();
      } catch (err) {
        progress.end();
        if (err instanceof MobilityError && RUN_STOPPERS.includes(err.code)) {
          io.err(`mobility-api: ${err.message}`);
          failed = true;
          // A full disk stops every endpoint alike; a refusal or a busy folder may be this endpoint's alone.
          if (err.code === 'HARVEST_WRITE_FAILED' || !several) return 1;
          continue;
        }
        throw err;
      }
    }
    if (values.snapshot && !stop.signal.aborted) {
      io.err('mobility-api: snapshot of /vehicles, /vehicles/status and the monthly /reports of the months harvested…');
      try {
        snapshot = await harvestSnapshot({
          client,
          environment,
          credential,
          outDir,
          signal: stop.signal,
          reportMonths: reportMonthsOf(values.from as string, values.to as string),
        });
      } catch (err) {
        if (isCancelled(err)) {
          // Stopped by the user: no snapshot is written, the hours are kept.
        } else if (
          err instanceof MobilityError &&
          ['HARVEST_SNAPSHOT_FAILED', 'HARVEST_WRITE_FAILED', 'HARVEST_REFUSED'].includes(err.code)
        ) {
          io.err(`mobility-api: ${err.message}`);
          failed = true;
        } else if (err instanceof MobilityError && err.code.startsWith('HTTP_')) {
          io.err(`mobility-api: the snapshot was not taken: ${err.message}`);
          failed = true;
        } else {
          throw err;
        }
      }
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  progress.end();
  const interrupted = stop.signal.aborted || summaries.some((s) => s.interrupted);
  if (values.json) {
    const json = several
      ? { outDir: path.resolve(outDir), endpoints: summaries, ...(snapshot ? { snapshot } : {}) }
      : { ...summaries[0], ...(snapshot ? { snapshot } : {}) };
    io.out(JSON.stringify(json, null, 2));
  } else {
    const text = summaries.map(formatSummary);
    if (snapshot) text.push(formatSnapshot(snapshot, path.resolve(outDir)));
    io.out(text.join('\n\n'));
  }
  if (interrupted) return EXIT_INTERRUPTED;
  return !failed && summaries.length === endpoints.length && summaries.every((s) => s.complete) ? 0 : 1;
}

/** The snapshot's lines of the summary. */
export function formatSnapshot(s: SnapshotManifest, outDir: string): string {
  return [
    `Snapshot in ${path.join(outDir, 'snapshot')} at ${s.fetchedAt}${s.lastUpdated !== undefined ? ` (last_updated ${new Date(s.lastUpdated).toISOString()})` : ''}`,
    `  /vehicles          ${String(s.lists.vehicles.items).padStart(6)} ${s.lists.vehicles.items === 1 ? 'vehicle' : 'vehicles'} in ${plural(s.lists.vehicles.pages, 'page')}`,
    `  /vehicles/status   ${String(s.lists.vehicles_status.items).padStart(6)} ${s.lists.vehicles_status.items === 1 ? 'status' : 'statuses'} in ${plural(s.lists.vehicles_status.pages, 'page')}`,
    ...Object.entries(s.reports ?? {}).map(
      ([month, r]) => `  /reports/${month}.csv ${r.status === 200 ? `${r.rows ?? 0} rows` : `answered ${r.status}`}`,
    ),
  ].join('\n');
}

/** Progress on stderr: one updating line on a terminal, one line per hour (and per wait) otherwise. */
class ProgressPrinter {
  private shown = false;

  constructor(private readonly io: CliIo) {}

  show(p: HarvestProgress): void {
    if (p.notice) this.line(`mobility-api: ${p.notice}`);
    if (p.phase === 'start' && p.hoursSkipped > 0)
      this.line(
        `mobility-api: ${plural(p.hoursSkipped, 'hour')} of ${p.hoursTotal} already done in this folder: skipped.`,
      );
    const status = this.io.statusLine;
    if (status) {
      if (p.phase === 'waiting') this.line(`${p.hour}: ${fromServer(p.reason ?? '', 200)}`);
      if (p.phase === 'hour' && p.record && p.record.status !== 'items' && p.record.status !== 'empty')
        this.line(hourLine(p));
      if (p.phase === 'done') return;
      const where = p.hour
        ? ` ${p.hour}${p.attempt && p.attempt > 1 ? ` attempt ${p.attempt}` : ''}${p.page && p.page > 1 ? ` page ${p.page}` : ''}`
        : '';
      status(
        escapeForTerminal(
          `[${p.hoursDone}/${p.hoursTotal}]${where} · ${plural(p.items, 'item')} · ${rate(p)}${eta(p)}`,
        ).slice(0, 200),
      );
      this.shown = true;
      return;
    }
    if (p.phase === 'waiting') this.io.err(`${p.hour}: ${fromServer(p.reason ?? '', 200)}`);
    if (p.phase === 'hour') this.io.err(hourLine(p));
  }

  /** Ends the updating line, so that what follows starts on a line of its own. */
  end(): void {
    if (!this.shown) return;
    this.io.statusLine?.('');
    this.shown = false;
  }

  private line(text: string): void {
    this.end();
    this.io.err(text);
  }
}

function hourLine(p: HarvestProgress): string {
  const r = p.record;
  if (!r) return '';
  const what = r.status === 'items' ? plural(r.items, 'item') : STATUS_TEXT[r.status];
  const tries = r.attempts > 1 ? `, ${r.attempts} attempts` : '';
  const why = r.problem && r.status !== 'not_found' ? `: ${fromServer(r.problem, 200)}` : '';
  return `[${p.hoursDone}/${p.hoursTotal}] ${p.hour} ${what}${why} (${r.durationMs} ms${tries}) · ${plural(p.items, 'item')} · ${rate(p)}${eta(p)}`;
}

function rate(p: HarvestProgress): string {
  return `${p.itemsPerSecond.toFixed(p.itemsPerSecond < 10 ? 1 : 0)} items/s`;
}

function eta(p: HarvestProgress): string {
  if (p.etaSeconds === undefined || p.hoursDone >= p.hoursTotal) return '';
  const s = Math.round(p.etaSeconds);
  return ` · ETA ${s >= 3600 ? `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min` : s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`}`;
}

const STATUS_TEXT: Record<HourStatus, string> = {
  items: 'items',
  empty: 'empty (200, no items)',
  not_found: 'not found (404)',
  pending: 'pending (still 202)',
  failed: 'failed',
};

/** The coverage summary printed on stdout. */
export function formatSummary(s: HarvestSummary): string {
  const c = s.coverage;
  const lines = [
    `Harvest of ${s.endpoint} from ${s.baseUrl}, ${s.from} to ${s.to} (${plural(s.hours, 'hour')}) in ${s.outDir}`,
    `  with items        ${String(c.items).padStart(6)}   ${plural(s.items, 'item')}, ${formatBytes(s.bytes)}`,
    `  200 but empty     ${String(c.empty).padStart(6)}`,
    `  404 not found     ${String(c.not_found).padStart(6)}   (a future hour, one before the provider operated, or not served yet: tried again next run)`,
    `  202 still pending ${String(c.pending).padStart(6)}   (not processed yet: tried again next run)`,
    `  failed            ${String(c.failed).padStart(6)}`,
  ];
  if (s.notReached) lines.push(`  not reached       ${String(s.notReached).padStart(6)}   (the run was stopped)`);
  lines.push(
    `  ${plural(s.fetched, 'hour')} fetched by this run with ${plural(s.requests, 'request')} in ${(s.durationMs / 1000).toFixed(1)} s; ${s.skipped} already done before it`,
  );
  const shown = s.notDone.slice(0, 20);
  if (shown.length) {
    lines.push('Not done:');
    for (const h of shown)
      lines.push(
        `  ${h.hour}  ${h.status === 'not_reached' ? 'not reached' : STATUS_TEXT[h.status]}${h.problem && h.status !== 'not_found' ? `: ${fromServer(h.problem, 200)}` : ''}`,
      );
    if (s.notDone.length > shown.length)
      lines.push(`  … ${s.notDone.length - shown.length} more (see ${s.manifestFile})`);
  }
  if (s.conformance) {
    const k = s.conformance;
    lines.push(
      k.conforms
        ? `MDS 2.0: conforms — ${plural(k.itemsChecked, 'item')} checked`
        : `MDS 2.0: does not conform — ${plural(k.findingCount, 'finding')} in ${plural(k.itemsWithFindings, 'item')} of ${k.itemsChecked} (per hour in ${s.manifestFile})`,
    );
    for (const rule of k.rules.slice(0, 10))
      lines.push(
        `  ${String(rule.count).padStart(6)} × ${fromServer(rule.message, 200)} at ${rule.where || '/'} [${rule.keyword}]`,
      );
  }
  if (s.interrupted)
    lines.push('Stopped by the user: the hours finished are recorded; run the same command again to resume.');
  else if (s.complete) lines.push('Complete: every hour has items or is empty.');
  else
    lines.push(
      `Incomplete: ${plural(s.notDone.length, 'hour')} not done; run the same command again to retry them (done hours are skipped).`,
    );
  return lines.join('\n');
}
