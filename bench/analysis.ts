// The analysis of a harvest (issue 31): `check` over a 7-day harvest of a 2,000-vehicle fleet (trips, events,
// telemetry and the /vehicles snapshot) against DuckDB running the same rules' SQL by hand over the same files; the
// peak RSS of `check` over 1 and 7 days; the Parquet's size against the NDJSON's; `check` on the Parquet against on
// the NDJSON. The harvests are made once by the sandbox (its world, `fleetSize`), through the harvest engine, and
// cached under bench/.cache/ (BENCH_CACHE_DIR); BENCH_ANALYSIS_DAYS and BENCH_ANALYSIS_FLEET make them smaller while
// developing. Every measurement runs alone in a child process (analysisChild.ts), so that its time and peak RSS
// (DuckDB's native memory included) are its own.
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_MEMORY_LIMIT } from '../src/core/analysis/memoryLimit';
import type { Credential } from '../src/core/auth/credential';
import { harvestHours } from '../src/core/harvest/harvestRun';
import { harvestSnapshot } from '../src/core/harvest/harvestSnapshot';
import type { MdsHourEndpointId } from '../src/core/mds/mdsEndpoints';
import { formatUtcHour } from '../src/core/mds/utcHour';
import type { SandboxEnvironment } from '../src/sandbox/sandboxServer';
import { askChildOnce, credentialFromPem, ecPem, trustEntryOf } from './benchKeys';
import type { ReportedFigure } from './figures';
import { round3 } from './figures';
import { PROJECT_ROOT } from './harness';
import { benchClient, environmentOf } from './requests';
import { startSandboxProcess } from './sandboxProcess';
import { interleave, median, medianRatio } from './stats';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The harvest's days and fleet (7 and 2,000: the issue's figures); smaller while developing. */
export function scale(): { days: number; fleet: number } {
  const read = (name: string, fallback: number) => {
    const value = Number(process.env[name] ?? fallback);
    if (!Number.isInteger(value) || value < 1)
      throw new Error(`${name}=${process.env[name]}: give a whole number of 1 or more.`);
    return value;
  };
  return { days: read('BENCH_ANALYSIS_DAYS', 7), fleet: read('BENCH_ANALYSIS_FLEET', 2000) };
}

/** Rounds per side of the timed comparisons (each side a fresh process per round), after the warm-up rounds. */
const ROUNDS = Number(process.env.BENCH_ANALYSIS_ROUNDS ?? 2);
const WARMUP = Number(process.env.BENCH_ANALYSIS_WARMUP ?? 0);

/** Where generated harvests are kept between runs (git-ignored). */
export function benchCacheDir(): string {
  return process.env.BENCH_CACHE_DIR ?? path.join(PROJECT_ROOT, 'bench', '.cache');
}

/** The folders of one harvest endpoint, as `harvest trips,events,telemetry --out <dir>` names them. */
const ENDPOINTS: readonly { endpoint: MdsHourEndpointId; folder: string }[] = [
  { endpoint: 'trips', folder: 'trips' },
  { endpoint: 'events_historical', folder: 'events' },
  { endpoint: 'telemetry', folder: 'telemetry' },
];

/** What a cached harvest records once it is complete. */
export interface CachedHarvest {
  dir: string;
  days: number;
  fleet: number;
  from: string;
  to: string;
  items: Record<string, number>;
}

/** What the parent asks a measuring child (analysisChild.ts). */
export interface AnalysisChildRequest {
  side: 'check' | 'hand' | 'hand-tables' | 'parquet' | 'idle';
  folder: string;
  /** `parquet`: the folder to write. */
  out?: string;
  /** `parquet`: by hour (the default) or by day. */
  partition?: 'hour' | 'day';
}

export interface AnalysisChildReply {
  ms: number;
  maxRssKb: number;
  /** Items read (check: the report's counts), findings found. */
  items: number;
  findings: number;
  /** What the check's rules found, by rule id: the hand side's must be the same. */
  counts: Record<string, number>;
  /** check: how long the read took (the folder's manifests and AnalysisSession.open); the rest of `ms` is the rules'. */
  readMs?: number;
}

/** Bytes of the files under `dir` whose name ends with `ext`, and how many there are. */
function sizeOf(dir: string, ext: string): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith(ext)) continue;
    bytes += fs.statSync(path.join(entry.parentPath, entry.name)).size;
    files++;
  }
  return { bytes, files };
}

/**
 * The harvest of `days` whole UTC days ending with the day before yesterday, of a `fleet`-vehicle sandbox world:
 * from the cache, or made now (trips, events, telemetry hour by hour, then the snapshot) and cached. A folder is
 * written under a temporary name and renamed when complete, so that an interrupted run leaves no half harvest.
 */
export async function cachedHarvest(
  days: number,
  fleet: number,
  env: () => Promise<{ mds: SandboxEnvironment; credential: Credential }>,
): Promise<CachedHarvest> {
  const dir = path.join(benchCacheDir(), `analysis-fleet${fleet}-${days}d`);
  const marker = path.join(dir, 'bench-harvest.json');
  // Where it is now (the cache may have moved since it was made).
  if (fs.existsSync(marker)) return { ...(JSON.parse(fs.readFileSync(marker, 'utf8')) as CachedHarvest), dir };
  const { mds, credential } = await env();
  const temp = `${dir}.tmp-${process.pid}`;
  fs.rmSync(temp, { recursive: true, force: true });
  fs.mkdirSync(temp, { recursive: true });
  const lastDayStart = Math.floor(Date.now() / DAY_MS) * DAY_MS - 2 * DAY_MS;
  const from = formatUtcHour(lastDayStart - (days - 1) * DAY_MS);
  const to = formatUtcHour(lastDayStart + 23 * HOUR_MS);
  const items: Record<string, number> = {};
  const started = performance.now();
  for (const { endpoint, folder } of ENDPOINTS) {
    const summary = await harvestHours({
      client: benchClient(),
      environment: environmentOf(mds),
      credential,
      endpoint,
      from,
      to,
      outDir: path.join(temp, folder),
    });
    if (!summary.complete)
      throw new Error(
        `The benchmark harvest of ${endpoint} is incomplete: ${JSON.stringify(summary.notDone.slice(0, 3))}`,
      );
    items[folder] = summary.items;
  }
  const snapshot = await harvestSnapshot({
    client: benchClient(),
    environment: environmentOf(mds),
    credential,
    outDir: temp,
  });
  items.vehicles = snapshot.lists.vehicles.items;
  items.vehicles_status = snapshot.lists.vehicles_status.items;
  const cached: CachedHarvest = { dir, days, fleet, from, to, items };
  fs.writeFileSync(path.join(temp, 'bench-harvest.json'), `${JSON.stringify(cached, null, 2)}\n`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(temp, dir);
  console.log(
    `    (made the ${days}-day harvest of a ${fleet}-vehicle fleet in ${Math.round((performance.now() - started) / 1000)} s, cached in ${dir})`,
  );
  return cached;
}

/** A folder of hard links to the files of `from`. */
function linkFiles(from: string, to: string): void {
  fs.mkdirSync(to);
  for (const entry of fs.readdirSync(from, { withFileTypes: true }))
    if (entry.isFile()) fs.linkSync(path.join(from, entry.name), path.join(to, entry.name));
}

/**
 * The same harvest taken `times` times over, as overlapping harvests of one folder leave it: each endpoint's folder
 * `times` times (its manifest copied, its hour files hard-linked), so that `check` reads every item `times` times and
 * keeps it once. Made beside the cache from links, in a moment.
 */
function repeatedHarvest(harvest: CachedHarvest, times: number): string {
  const dir = `${harvest.dir}-x${times}`;
  // Hard links, not symbolic ones: a manifest's hour file that is a link out of its folder is refused (safeHourFile).
  // A copy made with symbolic links before that is made again.
  if (fs.existsSync(path.join(dir, 'snapshot')) && !fs.lstatSync(path.join(dir, 'snapshot')).isSymbolicLink())
    return dir;
  const temp = `${dir}.tmp-${process.pid}`;
  fs.rmSync(temp, { recursive: true, force: true });
  fs.mkdirSync(temp, { recursive: true });
  for (const { folder } of ENDPOINTS) {
    for (let n = 1; n <= times; n++) {
      const part = path.join(temp, `${folder}${n}`);
      fs.mkdirSync(part);
      fs.copyFileSync(path.join(harvest.dir, folder, 'manifest.json'), path.join(part, 'manifest.json'));
      for (const entry of fs.readdirSync(path.join(harvest.dir, folder), { withFileTypes: true })) {
        if (entry.isDirectory()) linkFiles(path.join(harvest.dir, folder, entry.name), path.join(part, entry.name));
      }
    }
  }
  linkFiles(path.join(harvest.dir, 'snapshot'), path.join(temp, 'snapshot'));
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(temp, dir);
  return dir;
}

/** The Parquet of `harvest` (by `mobility-api parquet`'s engine, in a child), from the cache or written now. */
async function cachedParquet(harvest: CachedHarvest, partition: 'hour' | 'day' = 'hour'): Promise<string> {
  const out = partition === 'hour' ? `${harvest.dir}-parquet` : `${harvest.dir}-parquet-by-day`;
  if (fs.existsSync(out)) return out;
  await askChildOnce<AnalysisChildRequest, AnalysisChildReply>(
    'analysisChild.js',
    { side: 'parquet', folder: harvest.dir, out, partition },
    'Parquet writer',
  );
  return out;
}

const child = (request: AnalysisChildRequest) =>
  askChildOnce<AnalysisChildRequest, AnalysisChildReply>('analysisChild.js', request, 'analysis child');
const mb = (kb: number) => round3(kb / 1024);
const total = (items: Record<string, number>) => Object.values(items).reduce((a, b) => a + b, 0);
const itemsText = (items: Record<string, number>) =>
  Object.entries(items)
    .map(([name, n]) => `${name} ${n}`)
    .join(', ');

/** The figures of issue 31's "Measured". */
export async function analysisFigures(): Promise<ReportedFigure[]> {
  const { days, fleet } = scale();
  let sandbox: Awaited<ReturnType<typeof startSandboxProcess>> | undefined;
  let credential: Credential | undefined;
  // The sandbox starts only when a harvest is not cached yet.
  const env = async () => {
    if (!sandbox || !credential) {
      const pem = ecPem();
      credential = credentialFromPem('ES256', pem, 'analysis-harvest');
      sandbox = await startSandboxProcess({
        options: { fleetSize: fleet, pageSize: 1000, verifyTokens: true },
        trust: [trustEntryOf(credential)],
      });
    }
    return { mds: sandbox.mds, credential };
  };
  let week: CachedHarvest;
  let day: CachedHarvest;
  try {
    week = await cachedHarvest(days, fleet, env);
    day = days === 1 ? week : await cachedHarvest(1, fleet, env);
  } finally {
    await sandbox?.close();
  }
  const parquet = await cachedParquet(week);
  const ndjson = sizeOf(week.dir, '.ndjson');
  const parquetSize = sizeOf(parquet, '.parquet');
  const size = `${days} days (${week.from} to ${week.to}) of a ${fleet}-vehicle sandbox fleet: ${total(week.items)} items (${itemsText(week.items)}), NDJSON ${mb(ndjson.bytes / 1024)} MB in ${ndjson.files} files`;

  // check against the rules' SQL by hand, each run a fresh process; one warm-up round (the page cache).
  const last = new Map<string, AnalysisChildReply>();
  const replies = new Map<string, AnalysisChildReply[]>();
  const timed = (request: AnalysisChildRequest) => async () => {
    const reply = await child(request);
    const key = `${request.side} ${request.folder}`;
    last.set(key, reply);
    replies.set(key, [...(replies.get(key) ?? []), reply]);
    return reply.ms;
  };
  /** Where check's time went over `folder`: the read and the rules, medians of every timed run. */
  const readAndRules = (folder: string) => {
    const runs = (replies.get(`check ${folder}`) ?? []).filter((r) => r.readMs !== undefined);
    return `the read ${round3(median(runs.map((r) => r.readMs ?? 0)))} ms, the rules ${round3(median(runs.map((r) => r.ms - (r.readMs ?? 0))))} ms`;
  };
  const [checkMs = [], tablesMs = [], handMs = []] = await interleave(ROUNDS, WARMUP, [
    timed({ side: 'check', folder: week.dir }),
    timed({ side: 'hand-tables', folder: week.dir }),
    timed({ side: 'hand', folder: week.dir }),
  ]);
  const checkReply = last.get(`check ${week.dir}`) as AnalysisChildReply;
  // Compared over the rules both ran: check skips a rule it cannot run on this harvest (status-vs-events when the
  // snapshot is far from the window, saying why) and runs those that read the manifests (not SQL).
  const same = (side: string) => {
    const hand = (last.get(`${side} ${week.dir}`) as AnalysisChildReply).counts;
    const both = Object.keys(hand).filter((id) => Object.hasOwn(checkReply.counts, id));
    const differ = both.filter((id) => hand[id] !== checkReply.counts[id]);
    const alone = Object.keys(hand).filter((id) => !both.includes(id));
    return `${differ.length ? `findings differ in ${differ.map((id) => `${id} (check ${checkReply.counts[id]}, by hand ${hand[id]})`).join(', ')}` : `the same findings in each of the ${both.length} rules both ran`}${alone.length ? `; run by hand only: ${alone.join(', ')}` : ''}`;
  };
  // The target is against the careful user's way (the files read once into tables); the views, read again by each
  // rule, are printed beside it.
  const ratio = medianRatio(checkMs, tablesMs);
  const itemsPerSecond = total(week.items) / (median(checkMs) / 1000);
  const time: ReportedFigure = {
    name: `analysis: check over ${days} days of a ${fleet}-vehicle fleet vs every rule's SQL run by hand in DuckDB over tables read once`,
    value: ratio,
    unit: 'x by hand',
    target: '<= 1.3 x by hand',
    met: ratio <= 1.3,
    raw: `${size}; check (readHarvestSource, AnalysisSession.open, runChecks: typed views with each item once, every rule, the items' counts, hour-coverage) median ${round3(median(checkMs))} ms, ${round3(itemsPerSecond)} items/s; by hand (the same hour files read with the models' column types, no de-duplication, then every SQL rule of the catalogue with the window and the snapshot's last_updated written in, as check builds it): over tables read once median ${round3(median(tablesMs))} ms (${same('hand-tables')}), over views that each rule reads again median ${round3(median(handMs))} ms, check ${round3(medianRatio(checkMs, handMs))} x of it (${same('hand')}); ${ROUNDS} rounds each in fresh processes, alternating, after ${WARMUP} warm-up round(s); ${checkReply.findings} findings`,
  };
  const speed: ReportedFigure = {
    name: `analysis: check over ${days} days of a ${fleet}-vehicle fleet, items per second`,
    value: itemsPerSecond,
    unit: 'items/s',
    target: 'printed (no target)',
    met: true,
    raw: `${total(week.items)} items in ${round3(median(checkMs))} ms (median of ${ROUNDS})`,
  };

  // Peak RSS of check over 1 and 7 days, each in its own process; an idle child beside it.
  const idle = await child({ side: 'idle', folder: week.dir });
  const dayCheck = await child({ side: 'check', folder: day.dir });
  const weekCheck = checkReply;
  const peak = weekCheck.maxRssKb / 1024 / 1024;
  const memory: ReportedFigure = {
    name: `analysis: peak RSS of check over ${days} days of a ${fleet}-vehicle fleet`,
    value: weekCheck.maxRssKb / 1024,
    unit: 'MB',
    target: '<= 1024 MB',
    met: peak <= 1,
    raw: `1 day (${total(day.items)} items): ${mb(dayCheck.maxRssKb)} MB; ${days} days (${total(week.items)} items): ${mb(weekCheck.maxRssKb)} MB; ${days} days over 1 day: ${round3(weekCheck.maxRssKb / dayCheck.maxRssKb)} x; an idle Node child: ${mb(idle.maxRssKb)} MB`,
  };
  // The same 7 days harvested 4 times over: 4 times the rows to read and de-duplicate, the same items after.
  const repeated = await child({ side: 'check', folder: repeatedHarvest(week, 4) });
  const sameRepeated =
    JSON.stringify(repeated.counts) === JSON.stringify(checkReply.counts) && repeated.items === checkReply.items
      ? 'the same items and findings per rule'
      : `differs: ${repeated.items} items, ${JSON.stringify(repeated.counts)}`;
  const repeatedFigure: ReportedFigure = {
    name: `analysis: peak RSS of check over ${days} days of a ${fleet}-vehicle fleet harvested 4 times over`,
    value: repeated.maxRssKb / 1024,
    unit: 'MB',
    target: '<= 1024 MB',
    met: repeated.maxRssKb / 1024 / 1024 <= 1,
    raw: `${4 * (total(week.items) - week.items.vehicles - week.items.vehicles_status)} rows read, each item kept once, in ${round3(repeated.ms)} ms; ${sameRepeated} as over the harvest taken once; taken once ${mb(weekCheck.maxRssKb)} MB`,
  };
  // Issue 37: the growth from the harvest to the same harvest taken 4 times over (28 days' worth of rows); 1 day to 7
  // measured DuckDB's memory limit, not growth, and is printed beside it.
  const flat: ReportedFigure = {
    name: `analysis: peak RSS of check, ${days} days harvested 4 times over / ${days} days`,
    value: repeated.maxRssKb / weekCheck.maxRssKb,
    unit: 'x',
    target: '<= 1.5 x',
    met: repeated.maxRssKb / weekCheck.maxRssKb <= 1.5,
    raw: `${days} days harvested 4 times over ${mb(repeated.maxRssKb)} MB, ${days} days ${mb(weekCheck.maxRssKb)} MB, 1 day ${mb(dayCheck.maxRssKb)} MB (${days} days / 1 day ${round3(weekCheck.maxRssKb / dayCheck.maxRssKb)} x for ${round3(total(week.items) / total(day.items))} x the items); DuckDB's memory limit ${DEFAULT_MEMORY_LIMIT}`,
  };

  // Parquet: its size, and check on it against check on the NDJSON.
  const sizeRatio = parquetSize.bytes / ndjson.bytes;
  const parquetFigure: ReportedFigure = {
    name: `analysis: Parquet (zstd) of ${days} days of a ${fleet}-vehicle fleet vs its NDJSON`,
    value: sizeRatio,
    unit: 'x NDJSON bytes',
    target: '<= 0.2 x NDJSON',
    met: sizeRatio <= 0.2,
    raw: `Parquet ${mb(parquetSize.bytes / 1024)} MB in ${parquetSize.files} files (endpoint=/date=/hour= partitions and the snapshot), NDJSON ${mb(ndjson.bytes / 1024)} MB in ${ndjson.files} files`,
  };
  const [onParquet = [], onNdjson = []] = await interleave(ROUNDS, WARMUP, [
    timed({ side: 'check', folder: parquet }),
    timed({ side: 'check', folder: week.dir }),
  ]);
  const parquetCheck = last.get(`check ${parquet}`) as AnalysisChildReply;
  const sameOnParquet =
    JSON.stringify(parquetCheck.counts) === JSON.stringify(checkReply.counts)
      ? 'the same findings per rule'
      : `findings differ: Parquet ${JSON.stringify(parquetCheck.counts)}, NDJSON ${JSON.stringify(checkReply.counts)}`;
  const checkRatio = medianRatio(onParquet, onNdjson);
  const parquetCheckFigure: ReportedFigure = {
    name: `analysis: check on the Parquet by hour (--partition hour) vs on the NDJSON, ${days} days of a ${fleet}-vehicle fleet`,
    value: checkRatio,
    unit: 'x on NDJSON',
    target: 'printed (no target: the goal is for the default layout, by day)',
    met: true,
    raw: `on Parquet by hour median ${round3(median(onParquet))} ms (${readAndRules(parquet)}; peak RSS ${mb(parquetCheck.maxRssKb)} MB), on NDJSON median ${round3(median(onNdjson))} ms (${readAndRules(week.dir)}); ${ROUNDS} rounds each in fresh processes, alternating, after ${WARMUP} warm-up round(s); ${sameOnParquet}`,
  };
  // The same by day (`parquet --partition day`): 24 times fewer, larger files.
  const byDay = await cachedParquet(week, 'day');
  const byDaySize = sizeOf(byDay, '.parquet');
  const [onByDay = [], onNdjsonAgain = []] = await interleave(ROUNDS, WARMUP, [
    timed({ side: 'check', folder: byDay }),
    timed({ side: 'check', folder: week.dir }),
  ]);
  const byDayCheck = last.get(`check ${byDay}`) as AnalysisChildReply;
  const sameByDay =
    JSON.stringify(byDayCheck.counts) === JSON.stringify(checkReply.counts)
      ? 'the same findings per rule'
      : `findings differ: by day ${JSON.stringify(byDayCheck.counts)}, NDJSON ${JSON.stringify(checkReply.counts)}`;
  const byDayRatio = medianRatio(onByDay, onNdjsonAgain);
  const byDayFigure: ReportedFigure = {
    name: `analysis: check on the Parquet by day (--partition day) vs on the NDJSON, ${days} days of a ${fleet}-vehicle fleet`,
    value: byDayRatio,
    unit: 'x on NDJSON',
    target: '<= 0.5 x on NDJSON',
    met: byDayRatio <= 0.5,
    raw: `on Parquet by day median ${round3(median(onByDay))} ms (${readAndRules(byDay)}; peak RSS ${mb(byDayCheck.maxRssKb)} MB; ${mb(byDaySize.bytes / 1024)} MB in ${byDaySize.files} files, ${round3(byDaySize.bytes / ndjson.bytes)} x the NDJSON), on NDJSON median ${round3(median(onNdjsonAgain))} ms; ${ROUNDS} rounds each, alternating; ${sameByDay}`,
  };
  return [time, speed, memory, flat, repeatedFigure, parquetFigure, parquetCheckFigure, byDayFigure];
}
