/**
 * The harvest folder's manifest (`<out>/manifest.json`): which endpoint of which provider was
 * harvested, and for every hour how it ended. The CLI and the extension write the same format, so
 * either can resume what the other started (docs/harvest.md describes it field by field).
 */
import * as l10n from '@vscode/l10n';
import { MobilityError } from '../base';
import type { MdsHourEndpointId } from '../mds';
import { MDS_HOUR_ENDPOINTS, parseUtcHour } from '../mds';

/** The value of `format` in every manifest. */
export const HARVEST_FORMAT = 'mobility-api-harvest';
/** Bumped when a reader of the previous version would misread a manifest. */
export const HARVEST_FORMAT_VERSION = 1;
/** The manifest's file name inside the output folder. */
export const MANIFEST_FILE = 'manifest.json';

/**
 * How one hour ended:
 * - `items`: 200 with at least one item, all in the hour's file;
 * - `empty`: 200 with an empty list (processed, nothing happened): an empty file;
 * - `not_found`: 404 (a future hour, one before the provider operated, or one it does not serve yet);
 * - `pending`: still 202 ("not processed yet") after the allowed attempts;
 * - `failed`: anything else (5xx or 429 after the retries, 400, a network failure, a body without the list).
 * Only `items` and `empty` are done; the others are tried again by the next run.
 */
export type HourStatus = 'items' | 'empty' | 'not_found' | 'pending' | 'failed';

/** The statuses a resumed run skips. */
export const DONE_STATUSES: readonly HourStatus[] = ['items', 'empty'];

/** One conformance rule of an hour or a run: how often it was broken, and a couple of examples. */
export interface HarvestRuleSummary {
  keyword: string;
  message: string;
  /** JSON Pointer with array indexes as `*`. */
  where: string;
  count: number;
  examples: { path: string; value: string }[];
}

/** The conformance findings of one hour (with `--validate`), grouped by rule. */
export interface HarvestConformance {
  conforms: boolean;
  itemsChecked: number;
  itemsWithFindings: number;
  findingCount: number;
  rules: HarvestRuleSummary[];
}

/** One hour in the manifest. */
export interface HourRecord {
  status: HourStatus;
  /** For `items` and `empty`: the file, relative to the output folder, with `/` separators. */
  file?: string;
  items: number;
  /** Bytes of the hour's file (0 when it has none). */
  bytes: number;
  /** Requests that carried the hour's first page (1 when it worked at once; retries add to it). */
  attempts: number;
  /** Every request of the hour: attempts, later pages and their retries. */
  requests: number;
  pages: number;
  /** The HTTP status that decided the outcome, when an answer came. */
  httpStatus?: number;
  /** ISO time the hour's first request started. */
  startedAt: string;
  durationMs: number;
  /** Why the hour is not done, in one sentence (server text escaped by front ends, not here). */
  problem?: string;
  /** For `pending`: the server's last Retry-After, in seconds. */
  retryAfterSeconds?: number;
  conformance?: HarvestConformance;
}

/** The whole manifest. Never holds a token or key material. */
export interface HarvestManifest {
  format: typeof HARVEST_FORMAT;
  formatVersion: number;
  endpoint: MdsHourEndpointId;
  /** The endpoint's path and hour parameter, for readers without the catalogue. */
  path: string;
  hourParameter: string;
  /** The environment's base URL (normalised, no credentials in it). */
  baseUrl: string;
  /** The earliest and latest hour any run asked for (a resumed run may widen them). */
  from: string;
  to: string;
  createdAt: string;
  updatedAt: string;
  /** Set by runs with `validate`: the mode items were checked against. */
  validatedMode?: string;
  /** Every hour tried so far, by `YYYY-MM-DDTHH`. */
  hours: Record<string, HourRecord>;
}

/** The hour file of `hour`, relative to the output folder: `<endpoint>/<YYYY-MM-DDTHH>.ndjson`. */
export function hourFileOf(endpoint: MdsHourEndpointId, hour: string): string {
  return `${endpoint}/${hour}.ndjson`;
}

const STATUSES: readonly HourStatus[] = ['items', 'empty', 'not_found', 'pending', 'failed'];

/**
 * Reads a manifest's text, checking what a resumed run relies on; HARVEST_MANIFEST_INVALID names
 * the file and what is wrong with it.
 */
export function parseManifest(text: string, file: string): HarvestManifest {
  const bad = (what: string): never => {
    throw new MobilityError(
      'HARVEST_MANIFEST_INVALID',
      l10n.t(
        "The harvest manifest {0} {1}. Harvest into a new folder, or remove the folder's manifest.json (its hour files are then fetched again).",
        file,
        what,
      ),
    );
  };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return bad(l10n.t('is not JSON ({0})', (err as Error).message));
  }
  if (!isRecord(data) || data.format !== HARVEST_FORMAT)
    return bad(l10n.t('is not a harvest manifest (no "format": "{0}")', HARVEST_FORMAT));
  if (typeof data.formatVersion !== 'number' || data.formatVersion > HARVEST_FORMAT_VERSION) {
    return bad(
      l10n.t(
        'has the format version {0}, newer than this version reads ({1}); update mobility-api',
        JSON.stringify(data.formatVersion),
        HARVEST_FORMAT_VERSION,
      ),
    );
  }
  if (typeof data.endpoint !== 'string' || !(MDS_HOUR_ENDPOINTS as readonly string[]).includes(data.endpoint))
    return bad(
      l10n.t('names the endpoint {0}, not one of {1}', JSON.stringify(data.endpoint), MDS_HOUR_ENDPOINTS.join(', ')),
    );
  if (typeof data.baseUrl !== 'string') return bad(l10n.t('has no "baseUrl"'));
  for (const key of ['from', 'to'] as const) {
    if (typeof data[key] !== 'string' || parseUtcHour(data[key]) === undefined)
      return bad(l10n.t('has {0} as "{1}", not a UTC hour', JSON.stringify(data[key]), key));
  }
  if (!isRecord(data.hours)) return bad(l10n.t('has no "hours"'));
  for (const [hour, record] of Object.entries(data.hours)) {
    if (parseUtcHour(hour) === undefined) return bad(l10n.t('has the hour {0}, not a UTC hour', JSON.stringify(hour)));
    if (
      !isRecord(record) ||
      !STATUSES.includes(record.status as HourStatus) ||
      typeof record.items !== 'number' ||
      typeof record.bytes !== 'number'
    ) {
      return bad(l10n.t('has a broken entry for {0}', hour));
    }
  }
  return data as unknown as HarvestManifest;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
