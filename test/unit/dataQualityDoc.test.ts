// docs/data-quality.md is the rules' page and their fixtures: every rule of the catalogue has a section with its code,
// severity, title and alias, an example harvest that fires it and one that does not. Each example is written into a
// harvest folder and checked with its rule alone (and each item of it is typed by the MDS 2.0 model: none is set aside); every report validates against docs/check-report.schema.json (ajv).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { CheckReport } from '../../src/core/analysis';
import { CHECK_REPORT_VERSION, DEFAULT_THRESHOLDS, RULE_CATALOG } from '../../src/core/analysis';
import { runCliInProcess } from './support/cliRunner';

const DOC = path.join(__dirname, '..', '..', '..', 'docs', 'data-quality.md');
const SCHEMA = path.join(__dirname, '..', '..', '..', 'docs', 'check-report.schema.json');
const T0 = Date.UTC(2026, 10, 20, 8);
const HOURS = 4;
const HOUR = 3_600_000;
const hourOf = (ms: number) => new Date(ms).toISOString().slice(0, 13);

type Item = Record<string, unknown>;
interface Example {
  trips?: Item[];
  events?: Item[];
  telemetry?: Item[];
  vehicles?: Item[];
  vehicles_status?: Item[];
  hours?: Record<string, { status: string; startedAt?: string }>;
  thresholds?: Record<string, number>;
  /** A whole month (`YYYY-MM`, UTC) harvested, and maxTripHours after it, instead of four hours: for the monthly reports. */
  month?: string;
  /** `--timezone` of the run. */
  timezone?: string;
  /** The snapshot's monthly reports, CSV by month. */
  reports?: Record<string, string>;
  /** Item counts a manifest records for an hour instead of the file's (a manifest that lies), by endpoint and hour. */
  manifestItems?: Record<string, Record<string, number>>;
}

/** The hours an example's harvest holds. */
interface Span {
  t0: number;
  hours: number;
}
const spanOf = (example: Example): Span => {
  if (!example.month) return { t0: T0, hours: HOURS };
  const t0 = Date.parse(`${example.month}-01T00:00:00Z`);
  const [y, m] = example.month.split('-').map(Number);
  return { t0, hours: (Date.UTC(y, m, 1) - t0) / HOUR + DEFAULT_THRESHOLDS.maxTripHours };
};

/** The sections of the page by code: its text, and its `json fires` and `json passes` blocks. */
function sections(markdown: string): Map<string, { text: string; fires?: Example; passes?: Example }> {
  const out = new Map<string, { text: string; fires?: Example; passes?: Example }>();
  for (const part of markdown.split(/^## /m).slice(1)) {
    const code = part.slice(0, part.indexOf('\n')).trim();
    const block = (kind: string) => {
      const m = new RegExp('```json ' + kind + '\\n([\\s\\S]*?)```').exec(part);
      return m ? (JSON.parse(m[1]) as Example) : undefined;
    };
    out.set(code, { text: part, fires: block('fires'), passes: block('passes') });
  }
  return out;
}

/** Writes one endpoint's folder: its items by hour (an item whose time is outside the hours goes into the first), a manifest. */
function writePart(
  dir: string,
  endpoint: string,
  items: Item[],
  timeOf: (i: Item) => number,
  { t0: T0, hours: HOURS }: Span,
  hours: Example['hours'] = {},
  counted: Record<string, number> = {},
): void {
  fs.mkdirSync(path.join(dir, endpoint), { recursive: true });
  const record: Record<string, unknown> = {};
  const placed = (i: Item) => {
    // `_hour` puts an item into another hour's file than its time's (an item in the wrong answer).
    if (typeof i._hour === 'string') return i._hour;
    const t = timeOf(i);
    return t >= T0 && t < T0 + HOURS * HOUR ? hourOf(t) : hourOf(T0);
  };
  for (let h = 0; h < HOURS; h++) {
    const hour = hourOf(T0 + h * HOUR);
    const marked = endpoint === 'trips' ? hours[hour] : undefined;
    if (marked) {
      record[hour] = {
        status: marked.status,
        items: 0,
        bytes: 0,
        attempts: 1,
        requests: 1,
        pages: 0,
        startedAt: marked.startedAt ?? new Date(T0 + (h + 2) * HOUR).toISOString(),
        durationMs: 1,
      };
      continue;
    }
    const inHour = items.filter((i) => placed(i) === hour);
    const text = inHour.map(({ _hour, ...i }) => JSON.stringify(i) + '\n').join('');
    fs.writeFileSync(path.join(dir, endpoint, `${hour}.ndjson`), text);
    record[hour] = {
      status: inHour.length ? 'items' : 'empty',
      file: `${endpoint}/${hour}.ndjson`,
      items: counted[hour] ?? inHour.length,
      bytes: Buffer.byteLength(text),
      attempts: 1,
      requests: 1,
      pages: 1,
      httpStatus: 200,
      startedAt: new Date(T0 + (h + 2) * HOUR).toISOString(),
      durationMs: 1,
    };
  }
  const manifest = {
    format: 'mobility-api-harvest',
    formatVersion: 1,
    endpoint,
    path: `/${endpoint}`,
    hourParameter: 'end_time',
    baseUrl: 'https://mds.example/provider',
    from: hourOf(T0),
    to: hourOf(T0 + (HOURS - 1) * HOUR),
    createdAt: new Date(T0).toISOString(),
    updatedAt: new Date(T0).toISOString(),
    hours: record,
  };
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
}

function writeExample(dir: string, example: Example): void {
  const span = spanOf(example);
  const counted = example.manifestItems ?? {};
  writePart(
    path.join(dir, 'trips'),
    'trips',
    example.trips ?? [],
    (i) => i.end_time as number,
    span,
    example.hours,
    counted.trips,
  );
  writePart(
    path.join(dir, 'events_historical'),
    'events_historical',
    example.events ?? [],
    (i) => i.timestamp as number,
    span,
    {},
    counted.events_historical,
  );
  writePart(
    path.join(dir, 'telemetry'),
    'telemetry',
    example.telemetry ?? [],
    (i) => i.timestamp as number,
    span,
    {},
    counted.telemetry,
  );
  if (example.vehicles || example.vehicles_status) {
    const snap = path.join(dir, 'snapshot');
    fs.mkdirSync(snap, { recursive: true });
    const vehicles = example.vehicles ?? [];
    const statuses = example.vehicles_status ?? [];
    fs.writeFileSync(path.join(snap, 'vehicles.ndjson'), vehicles.map((v) => JSON.stringify(v) + '\n').join(''));
    fs.writeFileSync(path.join(snap, 'vehicles_status.ndjson'), statuses.map((v) => JSON.stringify(v) + '\n').join(''));
    const lastUpdated = span.t0 + span.hours * HOUR;
    const lists = {
      vehicles: { file: 'vehicles.ndjson', items: vehicles.length, pages: 1 },
      vehicles_status: { file: 'vehicles_status.ndjson', items: statuses.length, pages: 1 },
    };
    const reports: Record<string, { status: number; file: string; rows: number }> = {};
    for (const [month, csv] of Object.entries(example.reports ?? {})) {
      fs.mkdirSync(path.join(snap, 'reports'), { recursive: true });
      fs.writeFileSync(path.join(snap, 'reports', `${month}.csv`), csv);
      reports[month] = { status: 200, file: `reports/${month}.csv`, rows: csv.trim().split('\n').length - 1 };
    }
    fs.writeFileSync(
      path.join(snap, 'snapshot.json'),
      JSON.stringify({
        format: 'mobility-api-snapshot',
        formatVersion: 1,
        baseUrl: 'https://mds.example/provider',
        fetchedAt: new Date(lastUpdated).toISOString(),
        lastUpdated,
        lists,
        ...(example.reports ? { reports } : {}),
      }),
    );
  }
}

/** Rules whose findings are about hours, months or the whole harvest, not one device. */
const HOUR_RULES = new Set([
  'MDS-HOUR-COVERAGE',
  'MDS-HOUR-PENDING-LONG',
  'MDS-PUBLICATION-LATENCY',
  'MDS-REPORTS-TRIPS',
  'MDS-HARVEST-FILES',
]);

describe('docs/data-quality.md: a section per rule, its examples as fixtures; the JSON report and its schema', function () {
  this.timeout(300_000);
  const page = sections(fs.readFileSync(DOC, 'utf8'));
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats(ajv);
  const validate = ajv.compile(JSON.parse(fs.readFileSync(SCHEMA, 'utf8')) as object);
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dq-doc-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const run = async (name: string, code: string, example: Example): Promise<CheckReport> => {
    const folder = path.join(dir, name);
    writeExample(folder, example);
    const thresholds = Object.entries(example.thresholds ?? {}).flatMap(([k, v]) => ['--threshold', `${k}=${v}`]);
    const zone = example.timezone ? ['--timezone', example.timezone] : [];
    const r = await runCliInProcess(['check', folder, '--json', '--rule', code, ...thresholds, ...zone]);
    assert.ok(r.code === 0 || r.code === 1, `${name}: exit ${r.code}: ${r.err}`);
    const report = JSON.parse(r.out) as CheckReport;
    assert.ok(
      validate(report),
      `${name}: the report does not follow docs/check-report.schema.json: ${ajv.errorsText(validate.errors)}`,
    );
    assert.equal(report.report_version, CHECK_REPORT_VERSION);
    // An example holds items a user can copy into a harvest: each typed by the MDS 2.0 model, none set aside (but where that is the point).
    if (name !== 'MDS-ITEM-UNTYPED-fires')
      assert.equal(
        report.items.untyped_items,
        0,
        `${name}: an item of the example does not follow the MDS 2.0 model (check --rule MDS-ITEM-UNTYPED on it says why)`,
      );
    return report;
  };

  it('has a section for every rule with its severity, title and alias, and no section for a rule that does not exist', () => {
    const codes = RULE_CATALOG.map((r) => r.code);
    assert.deepEqual([...page.keys()].filter((c) => c.startsWith('MDS-')).sort(), [...codes].sort());
    for (const rule of RULE_CATALOG) {
      const section = page.get(rule.code);
      assert.ok(
        section?.text.includes(`**${rule.severity}** · ${rule.title} · alias \`${rule.id}\``),
        `${rule.code}: severity, title and alias`,
      );
      assert.ok(section?.fires && section.passes, `${rule.code}: an example that fires it and one that does not`);
      assert.match(section?.text ?? '', /How to fix it at the provider: \S/);
      for (const basis of rule.mds)
        assert.ok(
          section?.text.includes(
            `[${basis.file}, ${basis.section}](https://github.com/openmobilityfoundation/mobility-data-specification/blob/2.0.2/`,
          ),
          `${rule.code}: its MDS basis ${basis.file}`,
        );
    }
  });

  for (const rule of RULE_CATALOG) {
    it(`${rule.code}: its example fires it, with device, trip and time; its counter-example does not`, async () => {
      const section = page.get(rule.code);
      assert.ok(section?.fires && section.passes);
      const fired = await run(`${rule.code}-fires`, rule.code, section.fires);
      const result = fired.rules.find((r) => r.code === rule.code);
      assert.ok(result, `${rule.code} ran: ${JSON.stringify(fired.skipped)}`);
      assert.ok(result.count > 0, `${rule.code}: the example fires it`);
      for (const f of result.findings) {
        assert.ok(f.time, `${rule.code}: a finding with its time: ${JSON.stringify(f)}`);
        if (!HOUR_RULES.has(rule.code))
          assert.ok(f.device_id, `${rule.code}: a finding with its device: ${JSON.stringify(f)}`);
      }
      const passed = await run(`${rule.code}-passes`, rule.code, section.passes);
      const quiet = passed.rules.find((r) => r.code === rule.code);
      assert.ok(quiet, `${rule.code} ran on the counter-example: ${JSON.stringify(passed.skipped)}`);
      assert.deepEqual(quiet.findings, [], `${rule.code}: the counter-example does not fire it`);
    });
  }

  it("names every threshold with its default: the page's table and the VS Code setting mobilityApi.analysis.thresholds", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
      contributes: {
        configuration: { properties: Record<string, { properties: Record<string, { default: number }> }> };
      };
    };
    const setting = manifest.contributes.configuration.properties['mobilityApi.analysis.thresholds'].properties;
    assert.deepEqual(Object.fromEntries(Object.entries(setting).map(([name, p]) => [name, p.default])), {
      ...DEFAULT_THRESHOLDS,
    });
    const text = fs.readFileSync(DOC, 'utf8');
    for (const [name, value] of Object.entries(DEFAULT_THRESHOLDS))
      assert.ok(text.includes(`| \`${name}\` | ${value} |`), `${name} in the page's table`);
  });

  it('--rule takes a code in any case or the old kebab id; an unknown one exits 2 and lists the codes', async () => {
    const folder = path.join(dir, 'aliases');
    writeExample(folder, page.get('MDS-EVENT-DUPLICATE')?.fires ?? {});
    for (const name of ['MDS-EVENT-DUPLICATE', 'mds-event-duplicate', 'duplicate-events']) {
      const r = await runCliInProcess(['check', folder, '--json', '--rule', name]);
      assert.equal(r.code, 1, name);
      assert.deepEqual(
        (JSON.parse(r.out) as CheckReport).rules.map((x) => x.code),
        ['MDS-EVENT-DUPLICATE'],
      );
    }
    const bad = await runCliInProcess(['check', folder, '--rule', 'MDS-NOPE']);
    assert.equal(bad.code, 2);
    assert.match(
      bad.err,
      /--rule MDS-NOPE: no such rule\. The rules: MDS-ID-DUPLICATE, MDS-ITEM-UNTYPED, MDS-HARVEST-FILES, MDS-TRIP-EVENTS, /,
    );
  });
});
