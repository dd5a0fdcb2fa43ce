// `mobility-api sql` and `mobility-api parquet` over real harvests of the sandbox (trips, events and telemetry,
// each its own harvest folder inside one folder, as `harvest --out` writes them): counts against the NDJSON the
// harvest wrote, column types from the MDS 2.0 models, each item once, the file system closed to queries, clear
// errors for folders and data that are not a harvest, and Parquet read back by a second reader (hyparquet).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { itemColumnsOf } from '../../src/core/analysis';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox } from '../../src/sandbox/sandboxServer';
import { runCliInProcess } from './support/cliRunner';

const HOUR = 3_600_000;
const DAY_MS = 24 * HOUR;
/** The day before yesterday (UTC): served by a sandbox on the real clock, whatever the time of day. */
const DAY_START = Math.floor(Date.now() / DAY_MS) * DAY_MS - 2 * DAY_MS;
const hourAt = (h: number) => new Date(DAY_START + h * HOUR).toISOString().slice(0, 13);
const ENDPOINTS = [
  { cli: 'trips', view: 'trips', folder: 'trips', key: 'trip_id' },
  { cli: 'events', view: 'events', folder: 'events_historical', key: 'event_id' },
  { cli: 'telemetry', view: 'telemetry', folder: 'telemetry', key: 'telemetry_id' },
] as const;

/** Every item a harvest folder's hour files hold. */
function ndjsonItems(dir: string): Record<string, unknown>[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.ndjson'))
    .flatMap((f) => fs.readFileSync(path.join(dir, f), 'utf8').split('\n').filter(Boolean))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Every Parquet file under `dir`, recursively. */
function parquetFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.parquet'))
    .map((e) => path.join(e.parentPath, e.name));
}

/**
 * Whether a value read back from Parquet holds what the NDJSON item held: the same scalars (integers may come
 * back as bigint), the same lists, and in structs every field the item had (the model's other fields are null).
 */
function sameItem(fromParquet: unknown, original: unknown, where: string): void {
  if (original === null || original === undefined) {
    assert.ok(fromParquet === null || fromParquet === undefined, `${where}: expected null, got ${String(fromParquet)}`);
  } else if (Array.isArray(original)) {
    assert.ok(Array.isArray(fromParquet), `${where}: expected a list`);
    assert.equal(fromParquet.length, original.length, `${where}: list length`);
    original.forEach((v, i) => sameItem(fromParquet[i], v, `${where}[${i}]`));
  } else if (typeof original === 'object') {
    assert.ok(fromParquet && typeof fromParquet === 'object', `${where}: expected a struct`);
    for (const [k, v] of Object.entries(original))
      sameItem((fromParquet as Record<string, unknown>)[k], v, `${where}.${k}`);
  } else if (fromParquet instanceof Date) {
    // An MDS time, written as a Parquet timestamp: the same instant, to the millisecond.
    assert.equal(fromParquet.getTime(), original, where);
  } else if (typeof fromParquet === 'bigint') {
    assert.equal(fromParquet, BigInt(original as number), where);
  } else {
    assert.equal(fromParquet, original, where);
  }
}

describe('CLI: mobility-api sql and parquet over a harvest', function () {
  this.timeout(120_000);
  let sandbox: RunningSandbox;
  let dir: string;
  let harvest: string;
  let withSnapshot: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'analysis-'));
    sandbox = await startSandbox({ fleetSize: 40, seed: 11, demoDir: path.join(dir, 'demo') });
    const base = sandbox.environments.find((e) => e.id === 'mds-staging')?.baseUrl ?? '';
    harvest = path.join(dir, 'harvest');
    for (const { cli, folder } of ENDPOINTS) {
      const r = await runCliInProcess([
        'harvest',
        cli,
        '--from',
        hourAt(9),
        '--to',
        hourAt(11),
        '--out',
        path.join(harvest, folder),
        '--base-url',
        base,
        '--credential',
        sandbox.demo.credentialFile,
        '--state-dir',
        path.join(dir, 'state'),
        '--precision',
        'milliseconds',
      ]);
      assert.equal(r.code, 0, r.err + r.out);
    }
    // The same harvest with the /vehicles and /vehicles/status snapshot beside the endpoints' folders, where `harvest
    // trips,events,telemetry --snapshot` puts it: taken by `harvest --snapshot` of one hour into a folder of its own, then moved.
    withSnapshot = path.join(dir, 'harvest-with-snapshot');
    fs.cpSync(harvest, withSnapshot, { recursive: true });
    const snap = path.join(dir, 'snapshot-run');
    const s = await runCliInProcess([
      'harvest',
      'trips',
      '--from',
      hourAt(9),
      '--to',
      hourAt(9),
      '--out',
      snap,
      '--snapshot',
      '--base-url',
      base,
      '--credential',
      sandbox.demo.credentialFile,
      '--state-dir',
      path.join(dir, 'state'),
      '--precision',
      'milliseconds',
    ]);
    assert.equal(s.code, 0, s.err + s.out);
    fs.renameSync(path.join(snap, 'snapshot'), path.join(withSnapshot, 'snapshot'));
  });
  after(async () => {
    await sandbox?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('counts every item of every endpoint once, in views typed by the MDS 2.0 models', async () => {
    for (const { view, folder, key } of ENDPOINTS) {
      const items = ndjsonItems(path.join(harvest, folder, folder));
      assert.ok(items.length > 0, `the sandbox served ${view}`);
      const r = await runCliInProcess([
        'sql',
        harvest,
        `SELECT count(*) AS n, count(DISTINCT ${key}) AS ids FROM ${view}`,
        '--json',
      ]);
      assert.equal(r.code, 0, r.err);
      assert.deepEqual(JSON.parse(r.out), [
        { n: new Set(items.map((i) => i[key])).size, ids: new Set(items.map((i) => i[key])).size },
      ]);
    }
    const snapshot = await runCliInProcess([
      'sql',
      harvest,
      'SELECT (SELECT count(*) FROM vehicles) AS v, (SELECT count(*) FROM vehicles_status) AS s',
      '--json',
    ]);
    assert.deepEqual(JSON.parse(snapshot.out), [{ v: 0, s: 0 }]);
    const types = await runCliInProcess([
      'sql',
      harvest,
      'SELECT start_time, start_location, trip_type FROM trips LIMIT 1',
      '--json',
    ]);
    const [row] = JSON.parse(types.out) as {
      start_time: unknown;
      start_location: { lat: unknown };
      trip_type: unknown;
    }[];
    assert.equal(typeof row.start_time, 'number');
    assert.equal(typeof row.start_location.lat, 'number');
    assert.ok(Array.isArray(row.trip_type));
  });

  it("finds no data-quality error in the sandbox's clean world (check, exit 0)", async () => {
    const r = await runCliInProcess(['check', harvest, '--json']);
    assert.equal(r.code, 0, r.out + r.err);
    const report = JSON.parse(r.out) as {
      rules: { id: string; severity: string; count: number; findings: unknown[] }[];
    };
    // Info rules measure (trips across the window's edges, publication latency); they are not faults.
    assert.deepEqual(
      report.rules
        .filter((rule) => rule.count > 0 && rule.severity !== 'info')
        .map((rule) => [rule.id, rule.findings.slice(0, 2)]),
      [],
    );
    assert.ok(report.rules.length >= 7);
  });

  it('types columns from the models, not the data: a field no item has is still a typed column', () => {
    const events = new Map(itemColumnsOf('events_historical').map((c) => [c.name, c.type]));
    assert.equal(events.get('timestamp'), 'BIGINT');
    assert.match(events.get('location') ?? '', /^STRUCT\("altitude" DOUBLE, .*"lat" DOUBLE, "lng" DOUBLE/);
    assert.equal(events.get('trip_ids'), 'VARCHAR[]');
    assert.equal(events.get('battery_percent'), 'BIGINT');
    // Mode-specific fields of every mode (allOf/oneOf merged): car-share trips' journey_id, micromobility's none.
    const trips = new Map(itemColumnsOf('trips').map((c) => [c.name, c.type]));
    assert.equal(trips.get('journey_id'), 'VARCHAR');
    assert.equal(trips.get('trip_type'), 'VARCHAR[]');
  });

  it('keeps an item once when a rewritten hour holds the same bytes again, two when its copy differs; prints a text table by default', async () => {
    const copy = path.join(dir, 'rewritten');
    fs.cpSync(path.join(harvest, 'trips'), copy, { recursive: true });
    const manifestFile = path.join(copy, 'manifest.json');
    const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as {
      hours: Record<string, { file: string; status: string }>;
    };
    const [first] = Object.keys(manifest.hours).filter((h) => manifest.hours[h].status === 'items');
    // The same items recorded under a second hour file, as a harvest that wrote the hour again would leave them.
    const again = `${hourAt(12)}`;
    // The later hour's copy of the first item says otherwise: that copy is the one kept.
    const lines = fs.readFileSync(path.join(copy, manifest.hours[first].file), 'utf8').split('\n').filter(Boolean);
    const changed: Record<string, unknown> = { ...(JSON.parse(lines[0]) as Record<string, unknown>), distance: 4242 };
    fs.writeFileSync(
      path.join(copy, 'trips', `${again}.ndjson`),
      `${[JSON.stringify(changed), ...lines.slice(1)].join('\n')}\n`,
    );
    manifest.hours[again] = { ...manifest.hours[first], file: `trips/${again}.ndjson` };
    fs.writeFileSync(manifestFile, JSON.stringify(manifest));
    const total = ndjsonItems(path.join(harvest, 'trips', 'trips')).length;
    const r = await runCliInProcess(['sql', copy, 'SELECT count(*) AS n FROM trips']);
    assert.equal(r.code, 0, r.err);
    // Every identical copy is merged; the changed one is a second item of that trip_id (a duplicate-ids finding).
    assert.match(r.out, new RegExp(`^n\\s*\\n-+\\s*\\n${total + 1}\\s*\\n\\(1 row\\)$`, 'm'));
    const kept = await runCliInProcess([
      'sql',
      copy,
      `SELECT distance FROM trips WHERE trip_id = '${String(changed.trip_id)}' ORDER BY distance = 4242`,
      '--json',
    ]);
    assert.equal(kept.code, 0, kept.err);
    assert.deepEqual(JSON.parse(kept.out), [
      { distance: (JSON.parse(lines[0]) as { distance: number }).distance },
      { distance: 4242 },
    ]);
  });

  it('runs only queries that read: writing, attaching, installing and reading outside the harvest are refused, and nothing is written', async () => {
    const outside = path.join(dir, 'leak.csv');
    for (const query of [
      `COPY trips TO '${outside}'`,
      `ATTACH '${path.join(dir, 'x.db')}'`,
      'INSTALL httpfs',
      "SELECT * FROM read_csv('/etc/passwd')",
      'CREATE TABLE t AS SELECT 1',
      'SELECT 1; SELECT 2',
      'SET enable_external_access = true',
    ]) {
      const r = await runCliInProcess(['sql', harvest, query]);
      assert.equal(r.code, 2, `${query}: ${r.out}`);
      assert.match(r.err, /^mobility-api: /, query);
      assert.doesNotMatch(r.err, /\n\s+at /, `${query}: no stack trace`);
    }
    assert.equal(fs.existsSync(outside), false);
    assert.equal(fs.existsSync(path.join(dir, 'x.db')), false);
    const two = await runCliInProcess(['sql', harvest, 'SELECT 1; SELECT 2']);
    assert.match(two.err, /one query at a time; this text holds 2 statements/);
    const create = await runCliInProcess(['sql', harvest, 'CREATE TABLE t AS SELECT 1']);
    assert.match(create.err, /Only queries that read .* this is a CREATE statement/);
  });

  it('names the memory limit a query ran out of and how to raise it; --memory-limit takes sizes and refuses anything else', async () => {
    const big = "SELECT max(length(x)) AS n FROM (SELECT string_agg(repeat('x', 1000), ',') AS x FROM range(100000))";
    const short = await runCliInProcess(['sql', harvest, big, '--memory-limit', '64MB', '--json']);
    assert.equal(short.code, 2);
    assert.match(
      short.err,
      /^mobility-api: The analysis needed more memory than its limit of 64MB \(Out of Memory Error[^\n]*\)\. Give it more: --memory-limit 1GB in the CLI/,
    );
    assert.doesNotMatch(short.err, /Possible solutions|SET threads|\n\s+at /);
    const enough = await runCliInProcess(['sql', harvest, big, '--memory-limit', '1GB', '--json']);
    assert.equal(enough.code, 0, enough.err);
    assert.deepEqual(JSON.parse(enough.out), [{ n: 100_099_999 }]);
    for (const bad of ['abc', '10MB', '1 PB', '-1GB']) {
      const r = await runCliInProcess(['check', harvest, `--memory-limit=${bad}`]);
      assert.equal(r.code, 2, bad);
      assert.equal(
        r.err.trim(),
        `mobility-api: --memory-limit ${bad}: give a size of 64MB or more, such as 512MB or 2GB.`,
      );
    }
  });

  it('removes the session folders that a killed process left behind, and only those', async () => {
    // A process that has ended: its pid names no running process.
    const ended = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    const left = path.join(os.tmpdir(), `mobility-analysis-${ended.stdout}-test${process.pid}`);
    const running = path.join(os.tmpdir(), `mobility-analysis-${process.ppid}-test${process.pid}`);
    for (const folder of [left, running]) {
      fs.mkdirSync(folder, { recursive: true });
      fs.writeFileSync(path.join(folder, 'harvest.duckdb'), 'x');
    }
    try {
      const r = await runCliInProcess(['sql', harvest, 'SELECT 1 AS one']);
      assert.equal(r.code, 0, r.err);
      assert.equal(fs.existsSync(left), false, 'the folder of the ended process is removed');
      assert.equal(fs.existsSync(running), true, 'the folder of a running process is kept');
      assert.deepEqual(
        fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith(`mobility-analysis-${process.pid}-`)),
        [],
        'the session removed its own folder on close',
      );
    } finally {
      fs.rmSync(running, { recursive: true, force: true });
      fs.rmSync(left, { recursive: true, force: true });
    }
  });

  it('shows a query error as DuckDB words it, with its line and the place', async () => {
    const r = await runCliInProcess(['sql', harvest, 'SELECT trip_id\nFRM trips']);
    assert.equal(r.code, 2);
    assert.match(r.err, /syntax error at or near "trips"/);
    assert.match(r.err, /LINE 2: FRM trips\n\s+\^/);
    const unknown = await runCliInProcess(['sql', harvest, 'SELECT nope FROM trips']);
    assert.match(unknown.err, /Referenced column "nope" not found/);
  });

  it('writes an answer with --out as CSV, JSON or Parquet, and refuses another extension', async () => {
    const csv = path.join(dir, 'answer.csv');
    const r = await runCliInProcess([
      'sql',
      harvest,
      'SELECT trip_id, start_time FROM trips ORDER BY trip_id',
      '--out',
      csv,
    ]);
    assert.equal(r.code, 0, r.err);
    const lines = fs.readFileSync(csv, 'utf8').trim().split('\n');
    assert.equal(lines[0], 'trip_id,start_time');
    assert.equal(lines.length - 1, ndjsonItems(path.join(harvest, 'trips', 'trips')).length);
    const bad = await runCliInProcess(['sql', harvest, 'SELECT 1', '--out', path.join(dir, 'answer.txt')]);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /name a file ending in \.csv, \.json or \.parquet/);
  });

  it('says what is wrong with a folder that is not a harvest and an empty one; a truncated line is set aside with its file and line', async () => {
    const empty = path.join(dir, 'empty');
    fs.mkdirSync(empty);
    const cases: [string, RegExp][] = [
      [path.join(dir, 'missing'), /is not a harvest folder: no such folder/],
      [empty, /is not a harvest folder: it is empty/],
      [path.join(dir, 'demo'), /is not a harvest folder: it holds no manifest\.json, nor do its folders/],
    ];
    for (const [folder, message] of cases) {
      const r = await runCliInProcess(['sql', folder, 'SELECT 1']);
      assert.equal(r.code, 2, folder);
      assert.match(r.err, message);
    }
    // A line in the middle of an hour file cut short: the message names that file and that line, as a user counts lines.
    const broken = path.join(dir, 'broken');
    fs.cpSync(path.join(harvest, 'trips'), broken, { recursive: true });
    const hourFile =
      fs
        .readdirSync(path.join(broken, 'trips'))
        .filter((f) => f.endsWith('.ndjson'))
        .find(
          (f) =>
            fs
              .readFileSync(path.join(broken, 'trips', f), 'utf8')
              .split('\n')
              .filter(Boolean).length >= 3,
        ) ?? '';
    assert.ok(hourFile, 'an hour file with three trips or more');
    const lines = fs
      .readFileSync(path.join(broken, 'trips', hourFile), 'utf8')
      .split('\n')
      .filter(Boolean);
    const bad = Math.ceil(lines.length / 2);
    lines[bad - 1] = lines[bad - 1].slice(0, 40);
    fs.writeFileSync(path.join(broken, 'trips', hourFile), `${lines.join('\n')}\n`);
    // The line cut short is set aside (untyped_items, with its file and line), the rest of the harvest is read.
    const r = await runCliInProcess([
      'sql',
      broken,
      "SELECT (SELECT count(*) FROM trips) AS trips, (SELECT list(file || ':' || line || ' ' || problem) FROM untyped_items) AS untyped",
      '--json',
    ]);
    assert.equal(r.code, 0, r.err);
    const total = ndjsonItems(path.join(harvest, 'trips', 'trips')).length;
    assert.deepEqual(JSON.parse(r.out), [{ trips: total - 1, untyped: [`trips/${hourFile}:${bad} not JSON`] }]);
  });

  /** Reads an endpoint's Parquet under `out` with hyparquet, its files at `date=…/<below>`, and compares every item with the NDJSON. */
  async function readBackItems(
    out: string,
    { view, folder, key }: (typeof ENDPOINTS)[number],
    below: string,
  ): Promise<Record<string, unknown>[]> {
    const files = parquetFiles(path.join(out, `endpoint=${view}`));
    for (const file of files)
      assert.match(
        path.relative(out, file),
        new RegExp(`^endpoint=${view}/date=\\d{4}-\\d{2}-\\d{2}/${below}[^/]+\\.parquet$`),
      );
    const rows: Record<string, unknown>[] = [];
    for (const file of files)
      rows.push(
        ...((await parquetReadObjects({ file: await asyncBufferFromFile(file), compressors })) as Record<
          string,
          unknown
        >[]),
      );
    const items = ndjsonItems(path.join(withSnapshot, folder, folder));
    assert.equal(rows.length, items.length, view);
    const byId = new Map(rows.map((row) => [row[key], row]));
    for (const item of items) sameItem(byId.get(item[key]), item, `${view} ${String(item[key])}`);
    return rows;
  }

  it('writes Parquet (zstd) in Hive partitions by day, the /vehicles snapshot too, that a second reader reads back item for item; check, sql and metrics read it as the harvest', async () => {
    const out = path.join(dir, 'parquet-out');
    const r = await runCliInProcess(['parquet', withSnapshot, '--out', out]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /partitioned by endpoint, date \(hour a column\)/);
    assert.deepEqual(fs.readdirSync(out).sort(), [
      '_harvest',
      'endpoint=events',
      'endpoint=telemetry',
      'endpoint=trips',
      'endpoint=vehicles',
      'endpoint=vehicles_status',
    ]);
    for (const endpoint of ENDPOINTS) {
      const rows = await readBackItems(out, endpoint, '');
      // One file per day and endpoint; the hour the harvest filed each item under is a column, an integer.
      assert.equal(
        new Set(parquetFiles(path.join(out, `endpoint=${endpoint.view}`)).map((f) => path.dirname(f))).size,
        parquetFiles(path.join(out, `endpoint=${endpoint.view}`)).length,
        'one file per day',
      );
      assert.ok(
        rows.every((row) => typeof row.hour === 'bigint' && row.hour >= 0n && row.hour <= 23n),
        `${endpoint.view}: hour is an integer column`,
      );
    }
    // The types as a second reader (hyparquet) reads them from the files' schemas: MDS times are timestamps in UTC,
    // the models' free-form objects JSON, the hour an integer.
    const schemaOf = async (file: string) => (await parquetMetadataAsync(await asyncBufferFromFile(file))).schema;
    const typesOf = async (view: string, names: readonly string[]) => {
      const schema = await schemaOf(parquetFiles(path.join(out, `endpoint=${view}`))[0]);
      return Object.fromEntries(
        names.map((name) => {
          const found = schema.filter((e) => e.name === name);
          assert.ok(found.length, `${view}.${name} is in the file`);
          return [name, found.map((e) => `${e.type} ${JSON.stringify(e.logical_type ?? null)}`)];
        }),
      );
    };
    const utcTime = 'INT64 {"type":"TIMESTAMP","isAdjustedToUTC":true,"unit":"MICROS"}';
    const json = 'BYTE_ARRAY {"type":"JSON"}';
    assert.deepEqual(
      await typesOf('trips', [
        'start_time',
        'end_time',
        'trip_attributes',
        'fare_attributes',
        'accessibility_attributes',
        'hour',
      ]),
      {
        start_time: [utcTime],
        end_time: [utcTime],
        trip_attributes: [json],
        fare_attributes: [json],
        accessibility_attributes: [json],
        hour: ['INT64 null'],
      },
    );
    assert.deepEqual(await typesOf('events', ['timestamp']), { timestamp: [utcTime] });
    assert.deepEqual(await typesOf('telemetry', ['timestamp']), { timestamp: [utcTime] });
    assert.deepEqual(await typesOf('vehicles', ['vehicle_attributes', 'accessibility_attributes']), {
      vehicle_attributes: [json],
      accessibility_attributes: [json],
    });
    // /vehicles/status: the times inside last_event and last_telemetry.
    assert.deepEqual(await typesOf('vehicles_status', ['timestamp']), { timestamp: [utcTime, utcTime] });
    // The snapshot: one file per list, every item as listed.
    for (const list of ['vehicles', 'vehicles_status']) {
      assert.deepEqual(
        parquetFiles(path.join(out, `endpoint=${list}`)).map((f) => path.relative(out, f)),
        [path.join(`endpoint=${list}`, 'data_0.parquet')],
      );
      const rows = (await parquetReadObjects({
        file: await asyncBufferFromFile(path.join(out, `endpoint=${list}`, 'data_0.parquet')),
        compressors,
      })) as Record<string, unknown>[];
      const items = fs
        .readFileSync(path.join(withSnapshot, 'snapshot', `${list}.ndjson`), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      assert.ok(items.length > 0, list);
      assert.equal(rows.length, items.length, list);
      const byId = new Map(rows.map((row) => [row.device_id, row]));
      for (const item of items) sameItem(byId.get(item.device_id), item, `${list} ${String(item.device_id)}`);
    }
    // check, sql and metrics read the Parquet folder as the harvest: the same report, the snapshot's rules run.
    const onNdjson = await runCliInProcess(['check', withSnapshot, '--json']);
    const onParquet = await runCliInProcess(['check', out, '--json']);
    assert.equal(onParquet.code, onNdjson.code, onParquet.err);
    const withoutFolder = (text: string) =>
      Object.fromEntries(
        Object.entries(JSON.parse(text) as Record<string, unknown>).filter(([key]) => key !== 'folder'),
      );
    const fromNdjson = withoutFolder(onNdjson.out);
    const fromParquet = withoutFolder(onParquet.out);
    assert.deepEqual(fromParquet, fromNdjson);
    const ran = (fromParquet.rules as { id: string }[]).map((r) => r.id);
    assert.ok(ran.includes('registry'), `the snapshot's rules ran: ${ran.join(', ')}`);
    // The snapshot is taken now, days after the harvest: status-vs-events says it cannot compare, on both alike.
    assert.match(
      (fromParquet.skipped as { id: string; why: string }[]).find((x) => x.id === 'status-vs-events')?.why ?? '',
      /^could not compare/,
    );
    const counts =
      'SELECT (SELECT count(*) FROM trips) AS trips, (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM telemetry) AS telemetry, (SELECT count(*) FROM vehicles) AS vehicles, (SELECT count(*) FROM vehicles_status) AS vehicles_status';
    assert.deepEqual(
      JSON.parse((await runCliInProcess(['sql', out, counts, '--json'])).out),
      JSON.parse((await runCliInProcess(['sql', withSnapshot, counts, '--json'])).out),
    );
    const metrics = async (folder: string) => {
      const m = await runCliInProcess(['metrics', folder, '--json', '--by', 'vehicle_type']);
      assert.equal(m.code, 0, m.err);
      return withoutFolder(m.out);
    };
    assert.deepEqual(await metrics(out), await metrics(withSnapshot));
    const twice = await runCliInProcess(['parquet', out, '--out', path.join(dir, 'parquet-twice')]);
    assert.equal(twice.code, 2);
    assert.match(twice.err, /is the Parquet of a harvest already/);
    const again = await runCliInProcess(['parquet', withSnapshot, '--out', out]);
    assert.equal(again.code, 2);
    assert.match(again.err, /exists already/);
    const unwritable = await runCliInProcess([
      'parquet',
      withSnapshot,
      '--out',
      path.join(dir, 'no-such-parent', 'out'),
    ]);
    assert.equal(unwritable.code, 2);
    assert.match(unwritable.err, /Cannot write into .*no-such-parent/);
    assert.equal(
      fs.readdirSync(dir).some((f) => f.includes('.tmp-')),
      false,
      'no temporary folder is left',
    );
  });

  it('writes Parquet by hour with --partition hour (date= and hour= folders), that a second reader and check, sql and metrics read as the harvest', async () => {
    const out = path.join(dir, 'parquet-by-hour');
    const r = await runCliInProcess(['parquet', withSnapshot, '--out', out, '--partition', 'hour']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /partitioned by endpoint, date and hour/);
    for (const endpoint of ENDPOINTS) await readBackItems(out, endpoint, 'hour=\\d{1,2}/');
    // The hour folders read as the same integer as the daily files' hour column.
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const connection = await (await DuckDBInstance.create(':memory:')).connect();
    for (const layout of [out, path.join(dir, 'parquet-out')]) {
      const types = await connection.runAndReadAll(
        `SELECT DISTINCT typeof(hour) FROM read_parquet('${path.join(layout, 'endpoint=trips', '**', '*.parquet')}', hive_partitioning = true)`,
      );
      assert.deepEqual(types.getRowsJS(), [['BIGINT']], layout);
    }
    connection.closeSync();
    const withoutFolder = (text: string) =>
      Object.fromEntries(
        Object.entries(JSON.parse(text) as Record<string, unknown>).filter(([key]) => key !== 'folder'),
      );
    for (const command of [
      ['check', '--json'],
      ['metrics', '--json'],
    ]) {
      const [name, ...flags] = command;
      const onNdjson = await runCliInProcess([name, withSnapshot, ...flags]);
      const onParquet = await runCliInProcess([name, out, ...flags]);
      assert.equal(onParquet.code, onNdjson.code, onParquet.err);
      assert.deepEqual(withoutFolder(onParquet.out), withoutFolder(onNdjson.out), name);
    }
    const hours = 'SELECT _hour, count(*) AS n FROM _telemetry_hours GROUP BY ALL ORDER BY ALL';
    assert.deepEqual(
      JSON.parse((await runCliInProcess(['sql', out, hours, '--json'])).out),
      JSON.parse((await runCliInProcess(['sql', withSnapshot, hours, '--json'])).out),
    );
    const bad = await runCliInProcess([
      'parquet',
      withSnapshot,
      '--out',
      path.join(dir, 'parquet-by-week'),
      '--partition',
      'week',
    ]);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--partition week: give day .* or hour/);
  });
});
