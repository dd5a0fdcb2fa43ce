// `sandbox --data-faults`: the world holds instances of each kind of fault that `mobility-api check` looks for, listed at
// GET /_sandbox/data-faults. A harvest of a clean world gives no error or warning finding; a harvest of six busy hours
// of a faulty world meets every kind, `check` finds every fault listed (its device and time) and nothing else. The set
// of rules that ran is asserted, so that a rule skipped for want of data never passes silently.
import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CheckReport } from '../../src/core/analysis';
import { DEFAULT_THRESHOLDS, RULE_CATALOG } from '../../src/core/analysis';
import { DATA_FAULT_RULES, startSandbox } from '../../src/sandbox/sandboxServer';
import type { DataFaultEntry, DataFaultRule, RunningSandbox } from '../../src/sandbox/sandboxServer';
import { cityHourOf } from '../../src/sandbox/world/worldGeography';
import type { HarvestManifest } from '../../src/core/harvest/harvestManifest';
import { SandboxGrpcClient, asMdsStatus, bearer } from './grpcSupport';
import { SandboxClient, assertMdsError } from './sandboxSupport';
import { runCliInProcess } from './support/cliRunner';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The day before yesterday (UTC): every hour of it is served, whatever the time of day. */
const DAY_START = Math.floor(Date.now() / DAY) * DAY - 2 * DAY;
/** The sandbox's clock stands at the end of the harvested hours, days before the real one the CLI signs with. */
const TOKEN_SKEW_SECONDS = Math.ceil((Date.now() - DAY_START) / 1000);
const hourText = (ms: number) => new Date(ms).toISOString().slice(0, 13);
/** The UTC hour of that day whose Berlin hour is `local`. */
const localHour = (local: number) => {
  for (let h = 0; h < 24; h++) if (cityHourOf(DAY_START + h * HOUR) === local) return DAY_START + h * HOUR;
  throw new Error(`no UTC hour is ${local} h in Berlin`);
};
/** publication-late's hour is 22 h Berlin, published 30 h later: its own test. */
const LATE = 'publication-late';
/** reports-vs-trips compares whole months (test/unit/geographyReports.test.ts): hours of one day leave it nothing to compare. */
const MONTHLY = 'reports-vs-trips';
/**
 * A harvest of trips, events and telemetry with its snapshot of /vehicles and /vehicles/status runs every rule of
 * check: asserted, so that a rule skipped for want of data never passes silently.
 */
const ALL_RULES: readonly string[] = RULE_CATALOG.map((r) => r.id)
  .filter((r) => r !== MONTHLY)
  .sort();
/** The rules of check but the monthly one: each has a fault kind, or an entry that says why it has none. */
const FAULT_RULES: readonly string[] = DATA_FAULT_RULES.filter((r) => r !== MONTHLY && r !== LATE).sort();
/** Measurements, not faults: their findings are not compared with the listing. */
const INFO_RULES = new Set(RULE_CATALOG.filter((r) => r.severity === 'info').map((r) => r.id));
/** Snapshot faults, about the /vehicles listing rather than a moment: matched by device alone. */
const SNAPSHOT_RULES = new Set(['registry', 'registry-vehicle-id']);

describe('sandbox --data-faults: faults that check finds, and only those', function () {
  this.timeout(300_000);
  let dir: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'data-faults-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Harvests trips, events and telemetry of [fromMs, toMs], one subfolder each, and the snapshot at the end; returns the exit code. */
  async function harvest(sandbox: RunningSandbox, out: string, fromMs: number, toMs: number): Promise<number> {
    const mds = sandbox.environments.find((e) => e.id === 'mds-staging')?.baseUrl ?? '';
    const r = await runCliInProcess([
      'harvest',
      'trips,events,telemetry',
      '--from',
      hourText(fromMs),
      '--to',
      hourText(toMs),
      '--out',
      out,
      '--snapshot',
      '--base-url',
      mds,
      '--credential',
      sandbox.demo.credentialFile,
      '--state-dir',
      path.join(dir, 'state'),
      '--precision',
      'milliseconds',
      '--max-202-attempts',
      '1',
      '--validate',
    ]);
    assert.ok(fs.existsSync(path.join(out, 'snapshot', 'snapshot.json')), `the snapshot is taken: ${r.err}`);
    return r.code;
  }

  /** Items with schema findings per endpoint folder, by the harvest's --validate. */
  function schemaFindings(out: string): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const endpoint of ['trips', 'events', 'telemetry']) {
      const manifest = JSON.parse(
        fs.readFileSync(path.join(out, endpoint, 'manifest.json'), 'utf8'),
      ) as HarvestManifest;
      counts[endpoint] = Object.values(manifest.hours).reduce((n, r) => n + (r.conformance?.itemsWithFindings ?? 0), 0);
    }
    return counts;
  }

  async function check(folder: string): Promise<{ code: number; report: CheckReport }> {
    const r = await runCliInProcess(['check', folder, '--json']);
    assert.ok(r.out, r.err);
    return { code: r.code, report: JSON.parse(r.out) as CheckReport };
  }

  function assertRulesRan(report: CheckReport): void {
    assert.deepEqual(
      report.skipped.filter((r) => r.id !== MONTHLY).map((r) => `${r.id}: ${r.why}`),
      [],
      'no rule is skipped',
    );
    assert.deepEqual(report.rules.map((r) => r.id).sort(), ALL_RULES, 'every rule of check ran');
  }

  it('without the flag: a clean harvest of 24 hours has no error or warning finding, and the sandbox lists no fault', async () => {
    // The snapshot is taken at the end of the harvested day: the sandbox's clock stands there (the CLI signs with the real one).
    const sandbox = await startSandbox({
      fleetSize: 150,
      seed: 7,
      demoDir: path.join(dir, 'demo-clean'),
      grpc: false,
      now: () => DAY_START + DAY,
      maxSkewSeconds: TOKEN_SKEW_SECONDS,
    });
    try {
      const out = path.join(dir, 'clean');
      assert.equal(await harvest(sandbox, out, DAY_START, DAY_START + 23 * HOUR), 0);
      const { code, report } = await check(out);
      assertRulesRan(report);
      const errors = report.rules.filter((r) => r.severity !== 'info' && r.count > 0);
      assert.deepEqual(
        errors.map(
          (r) =>
            `${r.id}: ${r.findings
              .slice(0, 3)
              .map((f) => `${f.device_id} ${f.time} ${f.detail}`)
              .join('; ')}`,
        ),
        [],
      );
      assert.equal(code, 0);
      const listed = await fetch(
        `${sandbox.url}/_sandbox/data-faults?from=${hourText(DAY_START)}&to=${hourText(DAY_START + 23 * HOUR)}`,
      );
      assert.equal(listed.status, 200);
      assert.deepEqual(await listed.json(), []);
      assert.deepEqual(
        schemaFindings(out),
        { trips: 0, events: 0, telemetry: 0 },
        'a clean world conforms to the official schemas',
      );
    } finally {
      await sandbox.close();
    }
  });

  it('with --data-faults all: six busy hours meet every kind, and check finds each listed fault (device and time) and nothing else', async () => {
    // Berlin 13:00 to 18:59: busy hours, an outage at 16 h between two busy hours, hours that stay 202 at 14 and 18 h.
    const from = localHour(13);
    const to = from + 5 * HOUR;
    // The snapshot is taken at the end of the harvested hours, so that the statuses' last events are among them.
    const sandbox = await startSandbox({
      fleetSize: 400,
      seed: 7,
      demoDir: path.join(dir, 'demo-faults'),
      grpc: false,
      dataFaults: 'all',
      now: () => to + HOUR,
      maxSkewSeconds: TOKEN_SKEW_SECONDS,
    });
    try {
      const out = path.join(dir, 'faulty');
      assert.equal(await harvest(sandbox, out, from, to), 1, 'the hours that stay 202 are not done');
      const answer = await fetch(`${sandbox.url}/_sandbox/data-faults?from=${hourText(from)}&to=${hourText(to)}`);
      assert.equal(answer.status, 200);
      const faults = (await answer.json()) as DataFaultEntry[];
      assert.deepEqual([...new Set(faults.map((f) => f.rule))].sort(), FAULT_RULES, 'every kind is met');
      // Every rule of check can be asked for; those whose faults the sandbox does not inject are listed, with why.
      assert.deepEqual(
        [...DATA_FAULT_RULES].sort(),
        RULE_CATALOG.map((r) => r.id).sort(),
        'every rule of the catalogue',
      );
      const notInjected = faults.filter((f) => f.detail === 'no fault of this rule is injected');
      assert.deepEqual(notInjected.map((f) => f.rule).sort(), [
        'harvest-files',
        'publication-latency',
        'trip-outside-window',
      ]);
      assert.ok(
        notInjected.every((f) => (f.unseen ?? '').length > 40),
        JSON.stringify(notInjected),
      );
      const units = faults.filter((f) => f.rule === 'units').map((f) => f.detail);
      for (const kind of [/in seconds/, /per mille/, /speed of/, /swapped/, /negative actual_cost/])
        assert.ok(
          units.some((d) => kind.test(d)),
          `${String(kind)} in ${units.join('; ')}`,
        );
      const hours = faults
        .filter((f) => f.rule === 'hour-coverage')
        .map(
          (f) =>
            `${f.time} ${/^an outage/.test(f.detail) ? 'outage' : /stays 202/.test(f.detail) ? 'stays 202' : f.detail}`,
        );
      const at = (local: number) => new Date(localHour(local)).toISOString();
      assert.deepEqual(hours, [`${at(14)} stays 202`, `${at(16)} outage`, `${at(18)} stays 202`]);

      const { code, report } = await check(out);
      assert.equal(code, 1);
      assertRulesRan(report);
      const windowEnd = to + HOUR;
      // A finding's time in seconds (a timestamp sent in seconds) is the fault's time in milliseconds.
      const timeOf = (iso: string | null) => {
        const ms = iso === null ? NaN : Date.parse(iso);
        return ms < Date.UTC(2000, 0, 1) ? ms * 1000 : ms;
      };
      // A registry fault is about the /vehicles snapshot, not a moment: listed with time null, it matches by device
      // (the rule gives a missing vehicle the time of its first item in the harvest, one listed twice none).
      const key = (rule: string, device: string | null, ms: number) =>
        `${rule} ${device ?? '-'} ${Number.isNaN(ms) || SNAPSHOT_RULES.has(rule) ? '-' : new Date(ms).toISOString()}`;
      const listed = new Set(faults.map((f) => key(f.rule, f.device_id, timeOf(f.time))));
      const found = new Set<string>();
      const unexpected: string[] = [];
      // Every rule but the measurements: a rule without a fault kind finds nothing here.
      for (const rule of report.rules.filter((r) => !INFO_RULES.has(r.id))) {
        for (const f of rule.findings) {
          const k = key(rule.id, f.device_id, timeOf(f.time));
          found.add(k);
          if (!listed.has(k)) unexpected.push(`${k}: ${f.detail}`);
        }
      }
      assert.deepEqual(unexpected, [], 'findings of no injected fault');
      // check sees a trip_start without its end only when the harvest goes on for maxTripHours after it.
      const findable = faults.filter(
        (f) =>
          f.unseen === undefined &&
          !(
            f.rule === 'trip-events' &&
            /never followed/.test(f.detail) &&
            timeOf(f.time) + DEFAULT_THRESHOLDS.maxTripHours * HOUR >= windowEnd
          ),
      );
      const missed = findable
        .filter((f) => !found.has(key(f.rule, f.device_id, timeOf(f.time))))
        .map((f) => `${f.rule} ${f.device_id} ${f.time}: ${f.detail}`);
      assert.deepEqual(missed, [], 'injected faults check did not find');
      assert.ok(findable.length >= 3 * 12, `at least every kind in each of the three busy hours (${findable.length})`);
      // The sandbox's clock stands an hour after the window, so it says the hours that stay 202 are not yet
      // hour-pending-long's; the harvest stamps its manifest with the real clock, days later, and check sees them.
      const pending = faults.filter((f) => f.rule === 'hour-pending-long');
      assert.deepEqual(
        pending.map((f) => `${f.time} ${f.unseen === undefined ? 'seen' : 'unseen'}`),
        [`${at(14)} unseen`, `${at(18)} unseen`],
      );
      assert.ok(
        pending.every((f) => found.has(key(f.rule, null, timeOf(f.time)))),
        'asked days after, the hours that stay 202 are found',
      );
      // Values the schema forbids are schema findings too (each item once, whatever rules see it): a negative cost
      // (trips), a battery over 100 (events), a timestamp in seconds, a position in microdegrees, a battery of -1 (telemetry).
      const forbidden = (what: RegExp) =>
        faults.filter((f) => /schema finding/.test(f.detail) && what.test(f.detail) && !/ seen by /.test(f.detail))
          .length;
      assert.deepEqual(schemaFindings(out), {
        trips: forbidden(/actual_cost/),
        events: forbidden(/per mille/),
        telemetry: forbidden(/^a telemetry/),
      });
      assert.ok(forbidden(/actual_cost/) >= 3 && forbidden(/^a telemetry/) >= 9);
    } finally {
      await sandbox.close();
    }
  });

  it('publication-late: an hour processed 30 h late stays 202 until then (listed with why), then its items carry that publication_time, and check finds it', async () => {
    // The day before DAY_START, so that the publication (30 h after the hour) is in the past of the real clock too.
    const late = localHour(22) - DAY;
    const at = (now: number, name: string) =>
      startSandbox({
        fleetSize: 150,
        seed: 7,
        demoDir: path.join(dir, name),
        grpc: false,
        dataFaults: [LATE],
        now: () => now,
        maxSkewSeconds: TOKEN_SKEW_SECONDS,
      });
    const listing = async (sandbox: RunningSandbox) =>
      (await (
        await fetch(`${sandbox.url}/_sandbox/data-faults?from=${hourText(late)}&to=${hourText(late)}`)
      ).json()) as DataFaultEntry[];
    const early = await at(late + 3 * HOUR, 'demo-late-early');
    try {
      const listed = await listing(early);
      assert.deepEqual(
        [...new Set(listed.map((f) => `${f.rule} ${f.unseen === undefined ? 'seen' : 'unseen'}`))].sort(),
        ['hour-coverage seen', 'publication-late unseen'],
        JSON.stringify(listed),
      );
      assert.match(listed.find((f) => f.rule === LATE)?.unseen ?? '', /a harvest before then gets 202/);
    } finally {
      await early.close();
    }
    const sandbox = await at(late + 32 * HOUR, 'demo-late');
    try {
      const out = path.join(dir, 'late');
      const mds = sandbox.environments.find((e) => e.id === 'mds-staging')?.baseUrl ?? '';
      const r = await runCliInProcess([
        'harvest',
        'trips,events',
        '--from',
        hourText(late),
        '--to',
        hourText(late),
        '--out',
        out,
        '--base-url',
        mds,
        '--credential',
        sandbox.demo.credentialFile,
        '--state-dir',
        path.join(dir, 'state-late'),
        '--precision',
        'milliseconds',
        '--max-202-attempts',
        '1',
      ]);
      assert.equal(r.code, 0, r.err);
      const faults = await listing(sandbox);
      assert.ok(
        faults.length >= 1 && faults.every((f) => f.rule === LATE && f.unseen === undefined),
        JSON.stringify(faults),
      );
      const { report } = await check(out);
      const found = report.rules
        .find((rule) => rule.id === LATE)
        ?.findings.map((f) => `${f.device_id} ${f.time ?? ''}`)
        .sort();
      assert.deepEqual(found, faults.map((f) => `${f.device_id} ${f.time ?? ''}`).sort());
    } finally {
      await sandbox.close();
    }
  });

  it('lists only the faults a harvest of the window can show: no status-vs-events fault after the window, each at the time of the event a harvest of it holds', async () => {
    // The snapshot is taken at 20:30 Berlin; the window ends hours before it.
    const now = localHour(20) + 30 * 60_000;
    const from = localHour(9);
    const to = localHour(12);
    const sandbox = await startSandbox({
      fleetSize: 60,
      seed: 7,
      demoDir: path.join(dir, 'demo-window'),
      grpc: false,
      now: () => now,
      dataFaults: ['status-vs-events', 'registry'],
    });
    try {
      const inWindow = (await (
        await fetch(`${sandbox.url}/_sandbox/data-faults?from=${hourText(from)}&to=${hourText(to)}`)
      ).json()) as DataFaultEntry[];
      const late = inWindow.filter(
        (f) =>
          f.rule === 'status-vs-events' && !(Date.parse(f.time ?? '') >= from && Date.parse(f.time ?? '') < to + HOUR),
      );
      assert.deepEqual(late, [], 'no status-vs-events fault outside the window');
      // Up to now, the same vehicles' faults are listed near now.
      const upToNow = (await (
        await fetch(`${sandbox.url}/_sandbox/data-faults?from=${hourText(from)}&to=${hourText(now)}`)
      ).json()) as DataFaultEntry[];
      assert.ok(
        upToNow.some((f) => f.rule === 'status-vs-events' && Date.parse(f.time ?? '') >= to + HOUR),
        JSON.stringify(upToNow),
      );
      assert.equal(inWindow.filter((f) => /listed twice/.test(f.detail)).length, 2);
    } finally {
      await sandbox.close();
    }
  });

  it('the snapshot faults are the same over REST and gRPC: a vehicle missing from /vehicles, one listed twice, a stale status, one missing from /vehicles/status', async () => {
    const now = localHour(15) + 30 * 60_000;
    const sandbox = await startSandbox({
      fleetSize: 60,
      seed: 7,
      demoDir: path.join(dir, 'demo-snapshot'),
      now: () => now,
      dataFaults: ['registry', 'status-vs-events'],
    });
    const grpcClient = new SandboxGrpcClient(
      sandbox.environments.find((e) => e.id === 'mds-staging')?.grpcTarget ?? '',
      'VehicleService',
    );
    try {
      const client = new SandboxClient(sandbox, () => now);
      const faults = (await (
        await fetch(`${sandbox.url}/_sandbox/data-faults?from=${hourText(now - 6 * HOUR)}&to=${hourText(now)}`)
      ).json()) as DataFaultEntry[];
      const devices = (detail: RegExp) => faults.filter((f) => detail.test(f.detail)).map((f) => f.device_id ?? '');
      assert.equal(devices(/missing from \/vehicles,/).length, 2);
      assert.equal(devices(/listed twice/).length, 2);
      assert.ok(
        devices(/absent from \/vehicles\/status/).length >= 1 && devices(/shows the event before the last/).length >= 1,
        JSON.stringify(faults),
      );

      const vehicles = (await client.get<{ vehicles: { device_id: string }[] }>('/vehicles?page_size=1000')).body
        .vehicles;
      const ids = vehicles.map((v) => v.device_id);
      assert.equal(vehicles.length, 60);
      for (const id of devices(/missing from \/vehicles,/)) assert.ok(!ids.includes(id), id);
      for (const id of devices(/listed twice/)) assert.equal(ids.filter((i) => i === id).length, 2, id);
      // Paged, the listing holds the same entries.
      // One page after the other: each request's token has a later iat (spec 5, rule 6), so they cannot race.
      const paged: { device_id: string }[] = [];
      for (const page of [1, 2, 3]) {
        const answer = await client.get<{ vehicles: { device_id: string }[] }>(`/vehicles?page_size=25&page=${page}`);
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        paged.push(...answer.body.vehicles);
      }
      assert.deepEqual(
        paged.map((v) => v.device_id),
        ids,
      );

      const statuses = (
        await client.get<{ vehicles_status: { device_id: string; last_event: { timestamp: number } }[] }>(
          '/vehicles/status?page_size=1000',
        )
      ).body.vehicles_status;
      const statusIds = statuses.map((v) => v.device_id);
      for (const id of devices(/absent from \/vehicles\/status/)) assert.ok(!statusIds.includes(id), id);
      for (const fault of faults.filter((f) => /shows the event before the last/.test(f.detail))) {
        assert.ok(
          (statuses.find((v) => v.device_id === fault.device_id)?.last_event.timestamp ?? Infinity) <
            Date.parse(fault.time ?? ''),
          fault.detail,
        );
      }

      // The single-vehicle forms agree with the listings: a vehicle a listing leaves out is not found there either.
      const listedId = ids.find((id) => !devices(/listed twice/).includes(id)) ?? '';
      assert.equal((await client.get(`/vehicles/${listedId}`)).status, 200);
      for (const id of devices(/missing from \/vehicles,/)) {
        assert.equal((await client.get(`/vehicles/${id}`)).status, 404, id);
        assert.equal(
          (await grpcClient.unary('GetVehicle', { device_id: id }, bearer(await client.token()))).error?.code,
          grpc.status.NOT_FOUND,
          id,
        );
        assert.equal((await client.get(`/vehicles/status/${id}`)).status, 200, `${id} is still in /vehicles/status`);
      }
      for (const id of devices(/absent from \/vehicles\/status/)) {
        assert.equal((await client.get(`/vehicles/status/${id}`)).status, 404, id);
        assert.equal(
          (await grpcClient.unary('GetVehicleStatus', { device_id: id }, bearer(await client.token()))).error?.code,
          grpc.status.NOT_FOUND,
          id,
        );
      }
      assert.equal(
        (await grpcClient.unary('GetVehicle', { device_id: listedId }, bearer(await client.token()))).error,
        undefined,
      );

      const streamed = await grpcClient.stream<Record<string, unknown>>('ListVehicles', bearer(await client.token()));
      assert.equal(streamed.error, undefined);
      assert.deepEqual(streamed.items, vehicles);
      const streamedStatus = await grpcClient.stream<Record<string, unknown>>(
        'ListVehicleStatus',
        bearer(await client.token()),
      );
      assert.deepEqual(streamedStatus.items.map(asMdsStatus), statuses);
    } finally {
      grpcClient.close();
      await sandbox.close();
    }
  });

  it('refuses bad input: the listing says which hour to fix (400), an unknown rule is refused at start', async () => {
    const sandbox = await startSandbox({ fleetSize: 20, demoDir: false, grpc: false, dataFaults: ['units'] });
    try {
      const get = async (query: string) => {
        const res = await fetch(`${sandbox.url}/_sandbox/data-faults${query}`);
        return {
          status: res.status,
          headers: res.headers,
          text: '',
          body: (await res.json()) as Record<string, unknown>,
        };
      };
      const missing = await get(`?from=${hourText(DAY_START)}`);
      assertMdsError(missing, 400, 'missing_param');
      assert.match(
        String(missing.body.error_description),
        /needs from and to: the first and last UTC hour to list, YYYY-MM-DDTHH/,
      );
      const bad = await get(`?from=2025-13-01T00&to=${hourText(DAY_START)}`);
      assertMdsError(bad, 400, 'bad_param');
      assert.match(
        String(bad.body.error_description),
        /from is "2025-13-01T00", which is not a UTC hour; write YYYY-MM-DDTHH/,
      );
      const backwards = await get(`?from=${hourText(DAY_START + HOUR)}&to=${hourText(DAY_START)}`);
      assertMdsError(backwards, 400, 'bad_param');
      assert.match(String(backwards.body.error_description), /is before from .*; give the earlier hour as from/);
      const long = await get(`?from=${hourText(DAY_START - 40 * DAY)}&to=${hourText(DAY_START)}`);
      assertMdsError(long, 400, 'bad_param');
      assert.match(String(long.body.error_description), /list at most 744 \(31 days\) at a time/);
      const units = await get(`?from=${hourText(DAY_START)}&to=${hourText(DAY_START + 23 * HOUR)}`);
      assert.equal(units.status, 200);
      // The faults of the rules asked for; another rule's entry is one of them that it sees too, and says so.
      const others = (units.body as unknown as DataFaultEntry[]).filter((f) => f.rule !== 'units');
      assert.ok((units.body as unknown as DataFaultEntry[]).some((f) => f.rule === 'units'));
      assert.deepEqual(
        others
          .filter((f) => !/\(the units fault, seen by [a-z-]+ too\)$/.test(f.detail))
          .map((f) => `${f.rule}: ${f.detail}`),
        [],
        'only the rules asked for, and those that see their faults too',
      );
    } finally {
      await sandbox.close();
    }
    await assert.rejects(
      startSandbox({ demoDir: false, grpc: false, dataFaults: JSON.parse('["units", "nope"]') as DataFaultRule[] }),
      /The sandbox option dataFaults: "nope" is not a rule of mobility-api check/,
    );
    const cli = await runCliInProcess(['sandbox', '--data-faults', 'units,speed']);
    assert.equal(cli.code, 2);
    assert.match(
      cli.err,
      /--data-faults: "speed" is not a rule of mobility-api check; use all, or some of event-sequence, trip-events/,
    );
  });
});
