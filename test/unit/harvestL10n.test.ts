// Fetch Hours in another display language: with every string of the bundle translated (here, into full-width
// letters, so that a word of plain ASCII letters is one that missed l10n.t), the heatmap's cells, hover, legend
// and summary, the hour view's lines and the harvest's errors hold no English. This file is its own bundle, so
// configuring @vscode/l10n here leaves the other test files English.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { errorMessage } from '../../src/core/base/errors';
import { writeFailed } from '../../src/core/harvest/harvestFiles';
import type { HourRecord } from '../../src/core/harvest/harvestManifest';
import { parseManifest } from '../../src/core/harvest/harvestManifest';
import { hoursOf } from '../../src/core/harvest/harvestFolder';
import { harvestHeatmapView } from '../../src/results/analysis/harvestHeatmap';
import { harvestHourView } from '../../src/results/analysis/harvestHourView';
import { configureL10n } from '../../src/shared/l10n';

/** `Trips: {0}` → `Ｔｒｉｐｓ: {0}`: every ASCII letter full-width, the `{n}` places kept. */
function fullWidth(text: string): string {
  return text
    .split(/(\{\d+\})/)
    .map((piece) =>
      /^\{\d+\}$/.test(piece)
        ? piece
        : piece.replace(/[A-Za-z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)),
    )
    .join('');
}

/** The words of plain ASCII letters left in `text`, once identifiers (hours, file names, numbers) are taken out. */
function english(text: string): string[] {
  return text.split(/[^A-Za-z0-9_\-/.]+/).filter((w) => /^[A-Za-z]{2,}$/.test(w));
}

const record = (r: Partial<HourRecord> & Pick<HourRecord, 'status'>): HourRecord => ({
  items: 0,
  bytes: 0,
  attempts: 1,
  requests: 1,
  pages: 1,
  startedAt: '2025-11-04T20:00:01.123Z',
  durationMs: 1234,
  ...r,
});

describe('Fetch Hours in another display language', () => {
  const bundle = JSON.parse(
    fs.readFileSync(path.join(__dirname, '..', '..', '..', 'l10n', 'bundle.l10n.json'), 'utf8'),
  ) as Record<string, string>;
  before(() =>
    configureL10n({
      contents: Object.fromEntries(Object.keys(bundle).map((k) => [k, fullWidth(k)])),
      displayLanguage: 'de',
    }),
  );
  after(() => configureL10n({ contents: {}, displayLanguage: 'en' }));

  const hours: Record<string, HourRecord> = {
    '2025-11-04T18': record({
      status: 'items',
      items: 12_345,
      bytes: 3_000_000,
      file: 'trips/2025-11-04T18.ndjson',
      httpStatus: 200,
      attempts: 2,
      requests: 3,
      pages: 2,
    }),
    '2025-11-04T19': record({ status: 'empty', httpStatus: 200, file: 'trips/2025-11-04T19.ndjson' }),
    '2025-11-04T20': record({ status: 'not_found', httpStatus: 404 }),
    '2025-11-04T21': record({ status: 'pending', httpStatus: 202, retryAfterSeconds: 60 }),
    '2025-11-04T22': record({ status: 'failed', httpStatus: 500 }),
    '2025-11-04T23': record({ status: 'failed' }),
  };

  it("has the test's check catch English: a word missed by l10n.t is found, a translated one is not", () => {
    assert.deepEqual(english('2025-11-04 20:00–21:00 UTC: not yet fetched'), ['UTC', 'not', 'yet', 'fetched']);
    assert.deepEqual(english(fullWidth('2025-11-04 20:00–21:00 UTC: not yet fetched')), []);
  });

  for (const endpoint of ['trips', 'events_historical', 'telemetry'] as const) {
    it(`shows the heatmap of ${endpoint} (cells, hover, legend, summary) in the display language`, () => {
      const view = harvestHeatmapView({
        endpoint,
        from: '2025-11-04T17',
        to: '2025-11-05T01',
        hours,
        fetching: '2025-11-05T00',
      });
      const cells = view.days.flatMap((d) => d.cells);
      assert.deepEqual(
        new Set(cells.map((c) => c.state)),
        new Set(['outside', 'items', 'empty', 'not_found', 'pending', 'failed', 'fetching', 'not_fetched']),
      );
      const texts = [
        view.line,
        ...view.legend.map((l) => l.label),
        ...cells.flatMap((c) => [c.text, c.label, c.detail]),
      ];
      const left = texts.filter((t) => english(t).length);
      assert.deepEqual(left, []);
      assert.match(view.line, /^9 ｈｏｕｒｓ: /, 'the summary counts the range in the display language');
      assert.ok(
        cells.find((c) => c.hour === '2025-11-04T18')?.detail.includes('12.345'),
        'counts in the hover are formatted for the display language',
      );
    });

    it(`says what an hour of ${endpoint} holds, or why it holds nothing, in the display language`, () => {
      const lines = [
        harvestHourView(endpoint, '2025-11-04T17', undefined, undefined).line,
        harvestHourView(endpoint, '2025-11-04T20', hours['2025-11-04T20'], undefined).line,
        harvestHourView(endpoint, '2025-11-04T21', hours['2025-11-04T21'], undefined).line,
        harvestHourView(endpoint, '2025-11-04T23', hours['2025-11-04T23'], undefined).line,
        harvestHourView(endpoint, '2025-11-04T18', hours['2025-11-04T18'], undefined).line,
        harvestHourView(endpoint, '2025-11-04T18', hours['2025-11-04T18'], '{"a":1}\nnot json\n{"b":2}\n').line,
        harvestHourView(endpoint, '2025-11-04T19', hours['2025-11-04T19'], '').line,
      ];
      assert.deepEqual(
        lines.filter((t) => english(t).length),
        [],
      );
    });
  }

  it("gives the harvest's errors (range, manifest, disk) in the display language", () => {
    const messages: string[] = [];
    const caught = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        messages.push(errorMessage(err));
        return;
      }
      assert.fail('expected an error');
    };
    caught(() => hoursOf('2025-11-4T01', '2025-11-04T02'));
    caught(() => hoursOf('2025-11-04T03', '2025-11-04T02'));
    const file = path.join(os.tmpdir(), 'manifest.json');
    caught(() => parseManifest('{', file));
    caught(() =>
      parseManifest(
        '{"format":"mobility-api-harvest","formatVersion":1,"endpoint":"trips","baseUrl":"x","from":"2025-11-04T00","to":"2025-11-04T01"}',
        file,
      ),
    );
    messages.push(writeFailed(Object.assign(new Error('no space'), { code: 'ENOSPC' }), '/tmp/out', 'write').message);
    assert.equal(messages.length, 5);
    // The JSON parser's own message is Node's, not ours: leave it out.
    const ours = messages.map((m) => m.replace(/\(([^)]*JSON[^)]*)\)/, '()'));
    assert.deepEqual(
      ours.filter((m) => english(m).length),
      [],
    );
  });
});
