/**
 * Every hour file against its manifest: the lines it holds against the items the manifest counts, the endpoint the
 * manifest names against the items' own ids, and the hour files in the folder that the manifest does not list (never
 * read). A manifest `file` entry that would leave the harvest folder is refused before anything is read (safeHourFile.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { HarvestSource } from '../harvestSource';
import type { Intake } from './intake';

/** The field that names an item of each endpoint once, and the endpoints whose items carry it. */
const ID_OF: Record<string, string> = { trips: 'trip_id', events_historical: 'event_id', telemetry: 'telemetry_id' };

/** The first non-blank line of a file, read from its first 64 KB. */
function firstLine(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const buffer = Buffer.alloc(65_536);
    const n = fs.readSync(fd, buffer, 0, buffer.length, 0);
    return buffer
      .subarray(0, n)
      .toString('utf8')
      .split('\n')
      .find((l) => l.trim());
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Every .ndjson file under `dir`, but the snapshot's. */
function ndjsonFilesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ndjson'))
    .map((e) => path.join(e.parentPath, e.name))
    .filter((f) => !path.relative(dir, f).split(path.sep).includes('snapshot'));
}

type Finding = { device_id: null; trip_id: null; time: string | null; detail: string };

/** The findings of harvest-files over the NDJSON harvest (none for a Parquet folder: it was written from checked views). */
export function manifestFindings(source: HarvestSource, intake: Intake): Finding[] {
  if (source.parquet) return [];
  const findings: Finding[] = [];
  const at = (hour: string) => `${hour}:00:00.000Z`;
  for (const part of source.parts) {
    const manifestPath = path.join(part.dir, 'manifest.json');
    const rel = (file: string) => path.relative(source.folder, file) || path.basename(file);
    const listed = new Set<string>();
    for (const [hour, record] of Object.entries(part.manifest.hours).sort(([a], [b]) => a.localeCompare(b))) {
      if (!record.file) continue;
      const file = path.join(part.dir, ...record.file.split('/'));
      listed.add(file);
      if (record.status !== 'items' && record.status !== 'empty') continue;
      const lines = intake.lines.get(file) ?? 0;
      if (lines !== record.items) {
        findings.push({
          device_id: null,
          trip_id: null,
          time: at(hour),
          detail: `${part.table}: ${rel(manifestPath)} counts ${record.items} items for the hour ${hour}, but ${rel(file)} holds ${lines} (${lines < record.items ? 'lines lost' : 'lines the manifest does not count'})`,
        });
      }
      if (!lines) continue;
      const line = firstLine(file);
      let item: unknown;
      try {
        item = line === undefined ? undefined : JSON.parse(line);
      } catch {
        continue; // Not JSON: an untyped-items finding.
      }
      const own = ID_OF[part.manifest.endpoint];
      if (item && typeof item === 'object' && !(own in item)) {
        const other = Object.entries(ID_OF).find(([, key]) => key in item);
        findings.push({
          device_id: null,
          trip_id: null,
          time: at(hour),
          detail: `${part.table}: ${rel(manifestPath)} names the endpoint ${part.manifest.endpoint}, but the items of ${rel(file)} carry no ${own}${other ? ` and carry ${other[1]} (items of ${other[0]})` : ''}`,
        });
      }
    }
    for (const file of ndjsonFilesUnder(part.dir)) {
      if (listed.has(file)) continue;
      if (source.parts.some((p) => p !== part && p.dir !== part.dir && file.startsWith(p.dir + path.sep))) continue;
      findings.push({
        device_id: null,
        trip_id: null,
        time: null,
        detail: `${part.table}: ${rel(file)} is in the harvest folder but ${rel(manifestPath)} does not list it: it was not read`,
      });
    }
  }
  return findings;
}
