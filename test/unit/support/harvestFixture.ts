// A test harvest's endpoint folder, as `mobility-api harvest` writes it: `<dir>/<endpoint>/<hour>.ndjson` for each hour
// and `<dir>/manifest.json` recording each hour's file, item count and bytes.
import fs from 'node:fs';
import path from 'node:path';

const HOUR = 3_600_000;
const hourOf = (ms: number) => new Date(ms).toISOString().slice(0, 13);

type Item = Record<string, unknown>;

/**
 * Writes `hours` hours from `first`: each item into the hour of `timeOf(item)` (an item outside them is in no file).
 * `statuses` marks hours by index: `missing` (not in the manifest) or another status (`pending`, `failed` with a 503)
 * recorded without a file.
 */
export function writeHarvestPart(
  dir: string,
  endpoint: 'trips' | 'events_historical' | 'telemetry',
  items: readonly Item[],
  timeOf: (i: Item) => number,
  first: number,
  hours: number,
  statuses: Record<number, string> = {},
): void {
  fs.mkdirSync(path.join(dir, endpoint), { recursive: true });
  const record: Record<string, unknown> = {};
  for (let h = 0; h < hours; h++) {
    const hour = hourOf(first + h * HOUR);
    const status = statuses[h];
    if (status === 'missing') continue;
    if (status) {
      record[hour] = {
        status,
        items: 0,
        bytes: 0,
        attempts: 1,
        requests: 1,
        pages: 0,
        ...(status === 'failed' ? { httpStatus: 503 } : {}),
        startedAt: new Date().toISOString(),
        durationMs: 1,
      };
      continue;
    }
    const inHour = items.filter((i) => timeOf(i) >= first + h * HOUR && timeOf(i) < first + (h + 1) * HOUR);
    const text = inHour.map((i) => JSON.stringify(i) + '\n').join('');
    fs.writeFileSync(path.join(dir, endpoint, `${hour}.ndjson`), text);
    record[hour] = {
      status: inHour.length ? 'items' : 'empty',
      file: `${endpoint}/${hour}.ndjson`,
      items: inHour.length,
      bytes: Buffer.byteLength(text),
      attempts: 1,
      requests: 1,
      pages: 1,
      httpStatus: 200,
      startedAt: new Date().toISOString(),
      durationMs: 1,
    };
  }
  const now = new Date().toISOString();
  const manifest = {
    format: 'mobility-api-harvest',
    formatVersion: 1,
    endpoint,
    path: `/${endpoint}`,
    hourParameter: 'end_time',
    baseUrl: 'https://mds.example/provider',
    from: hourOf(first),
    to: hourOf(first + (hours - 1) * HOUR),
    createdAt: now,
    updatedAt: now,
    hours: record,
  };
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
}
