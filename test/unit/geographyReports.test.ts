// The sandbox's Geography API and monthly reports against `harvest --snapshot`, `sql --geographies` and `check`'s
// reports-vs-trips: a month of trips of a small fleet harvested whole, its report fetched with the snapshot, the trips
// assigned to the sandbox's districts, and the report reconciled exactly; a report with a data fault does not.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CheckReport } from '../../src/core/analysis';
import { harvestSnapshot } from '../../src/core/harvest';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox } from '../../src/sandbox/sandboxServer';
import { clientOn, demoCredential, mdsEnvironment } from './harvestSupport';
import { runCliInProcess } from './support/cliRunner';

/** The sandbox's clock: 1 March 2026, 05:00 UTC; its world starts 30 days before that day, on 30 January. */
const NOW = Date.UTC(2026, 2, 1, 5);
/** The CLI signs with the real clock, months after the sandbox's: its tokens' iat lie that far "ahead". */
const SKEW_SECONDS = Math.ceil((Date.now() - NOW) / 1000) + 3600;
/** February 2026 in Berlin: 31 January 23:00 UTC to 28 February 23:00 UTC; its last trips end within 3 hours. */
const FROM = '2026-01-31T23';
const TO = '2026-03-01T01';

describe('Geographies and monthly reports: the sandbox, sql --geographies and check reports-vs-trips', function () {
  this.timeout(240_000);
  let dir: string;
  let sandbox: RunningSandbox;
  let folder: string;
  let geographiesUrl: string;
  let credentialArgs: string[];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'geography-reports-'));
    sandbox = await startSandbox({
      fleetSize: 25,
      seed: 11,
      demoDir: path.join(dir, 'demo'),
      grpc: false,
      now: () => NOW,
      historyDays: 30,
      maxSkewSeconds: SKEW_SECONDS,
    });
    const mds = mdsEnvironment(sandbox).baseUrl;
    geographiesUrl = `${mds}/geographies`;
    credentialArgs = [
      '--credential',
      sandbox.demo.credentialFile,
      '--state-dir',
      path.join(dir, 'state'),
      '--precision',
      'milliseconds',
    ];
    folder = path.join(dir, 'harvest');
    const r = await runCliInProcess([
      'harvest',
      'trips',
      '--from',
      FROM,
      '--to',
      TO,
      '--out',
      folder,
      '--snapshot',
      '--base-url',
      mds,
      ...credentialArgs,
    ]);
    assert.equal(r.code, 0, r.err);
  });
  after(async () => {
    await sandbox?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('harvest --snapshot fetches the reports of the months harvested: February served, March not ended yet (404)', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(folder, 'snapshot', 'snapshot.json'), 'utf8')) as {
      reports: Record<string, { status: number; rows?: number }>;
    };
    assert.equal(manifest.reports['2026-02']?.status, 200);
    assert.equal(manifest.reports['2026-03']?.status, 404);
    const csv = fs
      .readFileSync(path.join(folder, 'snapshot', 'reports', '2026-02.csv'), 'utf8')
      .trim()
      .split('\r\n');
    assert.equal(
      csv[0],
      'provider_id,start_date,duration,special_group_type,geography_id,vehicle_type,trip_count,rider_count',
    );
    assert.equal(csv.length - 1, manifest.reports['2026-02']?.rows);
  });

  it("sql --geographies <the sandbox's /geographies> assigns every trip start and end to one district", async () => {
    const unsigned = await runCliInProcess(['sql', folder, 'SELECT 1', '--geographies', geographiesUrl]);
    assert.equal(unsigned.code, 2);
    assert.match(unsigned.err, /asks for a token\. Give a credential/);
    const r = await runCliInProcess([
      'sql',
      folder,
      `SELECT (SELECT count(*) FROM geographies) AS districts, (SELECT count(*) FROM trips) AS trips,
      (SELECT count(*) FROM trips_geographies WHERE point = 'start') AS starts, (SELECT count(*) FROM trips_geographies WHERE point = 'end') AS ends,
      (SELECT count(DISTINCT trip_id) FROM trips_geographies) AS assigned,
      (SELECT count(*) FROM trips_geographies g JOIN geographies USING (geography_id) WHERE name = 'Mitte') AS mitte`,
      '--json',
      '--geographies',
      geographiesUrl,
      ...credentialArgs,
    ]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /10 geographies from/);
    const [row] = JSON.parse(r.out) as {
      districts: number;
      trips: number;
      starts: number;
      ends: number;
      assigned: number;
      mitte: number;
    }[];
    assert.equal(row?.districts, 10);
    assert.ok((row?.trips ?? 0) > 500, `a month of trips: ${row?.trips}`);
    // The districts tile the fleet's area: each point lies in one (on a border, in two: none here).
    assert.equal(row?.starts, row?.trips);
    assert.equal(row?.ends, row?.trips);
    assert.equal(row?.assigned, row?.trips);
    assert.ok((row?.mitte ?? 0) > 0, 'trips start or end in Mitte, around Alexanderplatz');
  });

  it("check reports-vs-trips: the clean world's February report agrees exactly; January (before the harvest) is not compared", async () => {
    const r = await runCliInProcess([
      'check',
      folder,
      '--rule',
      'reports-vs-trips',
      '--timezone',
      'Europe/Berlin',
      '--geographies',
      geographiesUrl,
      '--json',
      ...credentialArgs,
    ]);
    const report = JSON.parse(r.out) as CheckReport;
    const rule = report.rules.find((x) => x.id === 'reports-vs-trips');
    assert.deepEqual(
      rule?.findings.map((f) => f.detail),
      [],
      r.err,
    );
    assert.equal(r.code, 0);
    assert.deepEqual(
      report.skipped.map((s) => `${s.id} ${s.why.slice(0, 7)}`),
      ['reports-vs-trips 2026-01'],
    );
    const without = JSON.parse(
      (await runCliInProcess(['check', folder, '--rule', 'reports-vs-trips', '--json'])).out,
    ) as CheckReport;
    assert.match(without.skipped[0]?.why ?? '', /--timezone/);
  });

  it("metrics trips.start_loc.count per district, by month in Berlin, equals the report's all_riders trip_count for every district and vehicle type", async () => {
    // Where the definitions coincide: /reports counts every trip (no duration bounds) by its start geography and start
    // time in the local month; so --min-trip-seconds 0, and --k 0 to compare the counts the report redacts too.
    const r = await runCliInProcess([
      'metrics',
      folder,
      '--measures',
      'trips.start_loc.count',
      '--interval',
      'P1M',
      '--timezone',
      'Europe/Berlin',
      '--dimensions',
      'geography_id,vehicle_type',
      '--geographies',
      geographiesUrl,
      '--k',
      '0',
      '--min-trip-seconds',
      '0',
      '--max-trip-seconds',
      '10800',
      '--json',
      ...credentialArgs,
    ]);
    assert.equal(r.code, 0, r.err);
    const response = JSON.parse(r.out) as { rows: (string | number | null)[][] };
    const counted = new Map(
      response.rows
        .filter((row) => row[0] === '2026-02-01T00:00+01:00')
        .map((row) => [`${row[1]}|${row[2]}`, Number(row[3])]),
    );
    const csv = fs
      .readFileSync(path.join(folder, 'snapshot', 'reports', '2026-02.csv'), 'utf8')
      .trim()
      .split('\r\n')
      .slice(1)
      .map((line) => line.split(','));
    const reported = csv.filter((c) => c[3] === 'all_riders');
    assert.equal(reported.length, 10 * new Set(reported.map((c) => c[5])).size, 'a row per district and vehicle type');
    for (const [, , , , geography, type, trips] of reported) {
      const ours = counted.get(`${geography}|${type}`) ?? 0;
      if (Number(trips) === -1) assert.ok(ours < 10, `${geography} ${type}: the report redacts it, we count ${ours}`);
      else assert.equal(ours, Number(trips), `${geography} ${type}`);
    }
    assert.ok(reported.filter((c) => Number(c[6]) >= 10).length >= 5, 'enough districts above k to compare');
  });

  it('check reports-vs-trips: a report with data faults is caught (a row with 7 trips too many, a combination left out)', async () => {
    const faulty = await startSandbox({
      fleetSize: 25,
      seed: 11,
      demoDir: path.join(dir, 'demo-faulty'),
      grpc: false,
      now: () => NOW,
      historyDays: 30,
      maxSkewSeconds: SKEW_SECONDS,
      dataFaults: ['reports-vs-trips'],
    });
    try {
      // The same trips; the snapshot (and its reports) taken again from the faulty sandbox.
      await harvestSnapshot({
        client: clientOn(() => Date.now()),
        environment: mdsEnvironment(faulty),
        credential: demoCredential(faulty),
        outDir: folder,
        reportMonths: ['2026-02'],
      });
    } finally {
      await faulty.close();
    }
    const r = await runCliInProcess([
      'check',
      folder,
      '--rule',
      'reports-vs-trips',
      '--timezone',
      'Europe/Berlin',
      '--geographies',
      geographiesUrl,
      '--json',
      ...credentialArgs,
    ]);
    assert.equal(r.code, 1, r.err);
    const details = (JSON.parse(r.out) as CheckReport).rules[0]?.findings.map((f) => f.detail) ?? [];
    assert.equal(details.length, 2, details.join('\n'));
    assert.match(
      details.find((d) => /all_riders: the report says/.test(d)) ?? '',
      /2026-02, .+, all_riders: the report says trip_count (\d+); the harvest's trips give (\d+)/,
    );
    const [, said, counted] = /trip_count (\d+); the harvest's trips give (\d+)/.exec(details.join('\n')) ?? [];
    assert.equal(Number(said) - Number(counted), 7);
    assert.ok(
      details.some((d) => /the report leaves out Mitte \(.+\), .+, low_income/.test(d)),
      details.join('\n'),
    );
  });
});
