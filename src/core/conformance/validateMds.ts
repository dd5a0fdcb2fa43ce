/**
 * MDS 2.0 Provider conformance: a response body checked against the official schemas (mds-openapi v2.0, vendored),
 * corrected for their known bugs (schemaCorrections.ts). The verdict uses the corrected schema; findings that the
 * official schema would give only because of a known bug are reported apart, labelled with the bug's id.
 */
import type { MdsEndpointId } from '../mds';
import { BranchIndex, explainErrors, previewValue } from './explainErrors';
import type { ConformanceFinding } from './explainErrors';
import { FindingSummary } from './findingSummary';
import type { ConformanceRule } from './findingSummary';
import { MDS_SCHEMA_SOURCE, compiledMdsSchema, payloadProperty } from './mdsSchemas';
import type { CompiledMdsSchema, MdsSchemaName, MdsSchemaSource } from './mdsSchemas';
import type { MdsMode } from './schemaCorrections';

/** Options of `validateMdsResponse`. */
export interface ValidateMdsOptions {
  /** The provider's mode (a provider id serves one mode); `any`: valid in at least one mode. Default micromobility. */
  mode?: MdsMode;
  /** Examples kept per rule (default 5). */
  maxExamplesPerRule?: number;
  /** The answer's Content-Type header, when known: checked against the media type the text requires. */
  contentType?: string;
  /**
   * Items also checked against the uncorrected official schema, to report what it would reject because of its known
   * bugs (default 10; 0 turns it off). The envelope is checked too, unless `schemaBugs` is false.
   */
  officialSampleSize?: number;
  /** False: no check against the uncorrected schema at all (`schemaBugs` empty), for a caller that only wants the verdict. */
  schemaBugs?: boolean;
}

/** The conformance of one response. */
export interface ConformanceReport {
  endpoint: MdsEndpointId;
  mode: MdsMode;
  /** True when the corrected official schema finds nothing (schema-bug findings do not count). */
  conforms: boolean;
  /** The official schemas used: repository, branch, commit. */
  schemaSource: MdsSchemaSource;
  /** Items of the payload array checked one by one (CSV reports: data rows counted, not checked). */
  itemsChecked: number;
  /** Items with at least one finding. */
  itemsWithFindings: number;
  /** Findings in `rules` (all of them, not only the examples), plus `omittedFindings`. */
  findingCount: number;
  /** What the provider should fix, grouped by rule, most frequent first. */
  rules: ConformanceRule[];
  /** Findings beyond the distinct rules kept (counted, not listed). */
  omittedFindings: number;
  /** What the uncorrected official schema rejects because of its own known bugs (not the provider's fault). */
  schemaBugs: ConformanceRule[];
  /** Items checked against the uncorrected official schema for `schemaBugs`. */
  officialItemsChecked: number;
}

const DEFAULT_MODE: MdsMode = 'micromobility';
const DEFAULT_EXAMPLES = 5;
const DEFAULT_OFFICIAL_SAMPLE = 10;

const indexes = new WeakMap<CompiledMdsSchema, BranchIndex>();

function branchIndex(schema: CompiledMdsSchema): BranchIndex {
  let index = indexes.get(schema);
  if (!index) {
    index = new BranchIndex(schema.root);
    indexes.set(schema, index);
  }
  return index;
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function check(
  schema: CompiledMdsSchema,
  which: 'envelope' | 'item',
  value: unknown,
  prefix: string,
): ConformanceFinding[] {
  const validate = which === 'envelope' ? schema.envelope : schema.item;
  if (!validate || validate(value)) return [];
  return explainErrors(validate.errors ?? [], branchIndex(schema), prefix, schema.bugs.size ? schema.bugs : undefined);
}

/** The place a finding is about: a missing property's own path, otherwise the finding's path. */
function target(finding: ConformanceFinding): string {
  const missing = /^missing required property (.+?)(?: \(|$)/.exec(finding.message)?.[1];
  return finding.keyword === 'required' && missing ? `${finding.path}/${escapePointer(missing)}` : finding.path;
}

function related(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

/**
 * The official schema's findings caused by one of its known bugs: labelled by the bug's location, and not about a
 * place where the corrected schema finds a problem too (there the value is wrong whatever the bug, e.g. month 13).
 */
function bugFindings(
  official: readonly ConformanceFinding[],
  corrected: readonly ConformanceFinding[],
): ConformanceFinding[] {
  const places = corrected.map(target);
  return official.filter((f) => f.schemaBug && !places.some((place) => related(place, target(f))));
}

/** The media type the 2.0.2 text requires of `endpoint` (the official file declares application/json: `media-type`). */
function expectedMediaType(endpoint: MdsEndpointId): string {
  return endpoint === 'reports' ? 'text/vnd.mds+csv' : 'application/vnd.mds+json';
}

/** A finding when `contentType` is not the MDS media type with a 2.x version parameter. */
export function checkMdsContentType(endpoint: MdsEndpointId, contentType: string): ConformanceFinding | undefined {
  const expected = expectedMediaType(endpoint);
  const [type = '', ...params] = contentType.split(';').map((s) => s.trim());
  const version = params.map((p) => /^version\s*=\s*"?([^";]*)"?$/i.exec(p)?.[1]).find((v) => v !== undefined);
  if (type.toLowerCase() === expected && version !== undefined && /^2\.\d+$/.test(version)) return undefined;
  return {
    path: '',
    keyword: 'contentType',
    message: `Content-Type must be ${expected};version=2.x (general-information.md "Versioning")`,
    value: previewValue(contentType),
    schemaPath: 'reference/provider.yaml',
  };
}

function reportRows(body: unknown): number {
  if (typeof body !== 'string') return 0;
  return Math.max(0, body.split(/\r?\n/).filter((line) => line.trim() !== '').length - 1);
}

/** Readable wording for the report's header rule (models/report.yaml is a pattern over the whole CSV text). */
function explainReportFinding(finding: ConformanceFinding, body: unknown): ConformanceFinding {
  if (finding.keyword !== 'pattern' || typeof body !== 'string') return finding;
  const columns = finding.message.replace(/^must match the pattern \^?/, '');
  return {
    ...finding,
    message: `the CSV must start with the header row ${columns}`,
    value: previewValue(body.split(/\r?\n/, 1)[0]),
  };
}

/**
 * Checks one MDS 2.0 Provider response body (parsed JSON; for `reports`, the CSV text) against the official schema
 * of `endpoint`, corrected for its known bugs. Items of the payload array are checked one by one, and findings are
 * grouped by rule, so that the report stays small for any page size.
 */
export function validateMdsResponse(
  endpoint: MdsEndpointId,
  body: unknown,
  options: ValidateMdsOptions = {},
): ConformanceReport {
  const mode = options.mode ?? DEFAULT_MODE;
  const maxExamples = Math.max(0, options.maxExamplesPerRule ?? DEFAULT_EXAMPLES);
  const sample = options.schemaBugs === false ? 0 : Math.max(0, options.officialSampleSize ?? DEFAULT_OFFICIAL_SAMPLE);
  const corrected = compiledMdsSchema(endpoint, 'corrected', mode);
  const official = compiledMdsSchema(endpoint, 'official', mode);
  const provider = new FindingSummary(maxExamples);
  const bugs = new FindingSummary(maxExamples);
  const adjust = (f: ConformanceFinding) => (endpoint === 'reports' ? explainReportFinding(f, body) : f);

  if (options.contentType !== undefined) {
    const finding = checkMdsContentType(endpoint, options.contentType);
    if (finding) provider.add(finding);
  }
  const envelopeFindings = check(corrected, 'envelope', body, '');
  for (const finding of envelopeFindings) provider.add(adjust(finding));
  if (options.schemaBugs !== false)
    for (const finding of bugFindings(check(official, 'envelope', body, ''), envelopeFindings))
      bugs.add(adjust(finding));

  const property = payloadProperty(endpoint);
  const items =
    property !== null && body && typeof body === 'object' ? (body as Record<string, unknown>)[property] : undefined;
  let itemsChecked = endpoint === 'reports' ? reportRows(body) : 0;
  let itemsWithFindings = 0;
  let officialItemsChecked = 0;
  if (property !== null && Array.isArray(items)) {
    const base = `/${escapePointer(property)}/`;
    for (let i = 0; i < items.length; i++) {
      // The fast pass says yes for a conforming item; only an item it refuses is checked again for every finding.
      const findings = corrected.fastItem?.(items[i]) ? [] : check(corrected, 'item', items[i], `${base}${i}`);
      if (findings.length) {
        itemsWithFindings++;
        for (const finding of findings) provider.add(finding);
      }
      if (i < sample) {
        officialItemsChecked++;
        for (const finding of bugFindings(check(official, 'item', items[i], `${base}${i}`), findings))
          bugs.add(finding);
      }
    }
    itemsChecked = items.length;
  }
  const rules = provider.list();
  const findingCount = rules.reduce((n, r) => n + r.count, 0) + provider.overflowFindings;
  return {
    endpoint,
    mode,
    conforms: findingCount === 0,
    schemaSource: MDS_SCHEMA_SOURCE,
    itemsChecked,
    itemsWithFindings,
    findingCount,
    rules,
    omittedFindings: provider.overflowFindings,
    schemaBugs: bugs.list(),
    officialItemsChecked,
  };
}

/**
 * Checks a UTC hour parameter (`YYYY-MM-DDTHH` of /trips, /telemetry, /events/historical) against
 * models/data-types/iso-dayhour.yaml, corrected; a finding labelled `month-november` tells that the official
 * pattern would reject it.
 */
export function validateMdsHour(value: string): ConformanceFinding[] {
  const name: MdsSchemaName = 'iso-dayhour';
  const findings = check(compiledMdsSchema(name, 'corrected', DEFAULT_MODE), 'envelope', value, '');
  return [
    ...findings,
    ...bugFindings(check(compiledMdsSchema(name, 'official', DEFAULT_MODE), 'envelope', value, ''), findings),
  ];
}

/**
 * Which endpoint a saved response most likely comes from, by its top-level keys (for `mobility-api validate <file>`
 * without an endpoint): undefined when nothing fits. A one-item list is taken for the list endpoint, and `events`
 * with `links` for /events/recent (paginated), without for /events/historical.
 */
export function guessMdsEndpoint(body: unknown): MdsEndpointId | undefined {
  if (typeof body === 'string') return /^\uFEFF?provider_id,/.test(body) ? 'reports' : undefined;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const has = (key: string) => Object.prototype.hasOwnProperty.call(body, key);
  if (has('vehicles_status')) return 'vehicles_status';
  if (has('vehicles')) return 'vehicles';
  if (has('trips')) return 'trips';
  if (has('telemetry')) return 'telemetry';
  if (has('events')) return has('links') ? 'events_recent' : 'events_historical';
  if (has('stops')) return 'stops';
  return undefined;
}
