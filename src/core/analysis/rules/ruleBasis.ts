/**
 * What every data-quality rule carries besides its query, so that a user can look it up: a stable code (what `--rule`,
 * the JSON report, JUnit and the panel name it by), a severity, and its basis in the official MDS 2.0.2 text (file
 * and section), each code with a section of docs/data-quality.md. Another helper's rule fits by being one more entry.
 */

/** How bad a finding is: `error` makes `check` exit 1; `warning` is reported; `info` is a measurement. */
export type RuleSeverity = 'error' | 'warning' | 'info';

/** The MDS release whose text the rules cite. */
export const MDS_TAG = '2.0.2';

/** A place in the official MDS text (openmobilityfoundation/mobility-data-specification at {@link MDS_TAG}). */
export interface MdsBasis {
  /** The file, e.g. `data-types.md`. */
  file: string;
  /** The section's heading, e.g. `GPS Data`. */
  section: string;
}

/** The section's address on GitHub (its anchor as GitHub writes it). */
export function mdsBasisUrl(basis: MdsBasis): string {
  const anchor = basis.section
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');
  return `https://github.com/openmobilityfoundation/mobility-data-specification/blob/${MDS_TAG}/${basis.file}#${anchor}`;
}

/** A rule's section in docs/data-quality.md, relative to the docs folder: the code in lower case is its anchor. */
export function ruleDocOf(code: string): string {
  return `data-quality.md#${code.toLowerCase()}`;
}

/** The codes and MDS basis of the rules that had a kebab id before codes (the id stays an alias of the code). */
export const LEGACY_RULE_CODES: Readonly<Record<string, { code: string; mds: readonly MdsBasis[] }>> = {
  'trip-events': {
    code: 'MDS-TRIP-EVENTS',
    mds: [
      { file: 'data-types.md', section: 'Events' },
      { file: 'modes/micromobility.md', section: 'Event Types' },
    ],
  },
  'duplicate-events': { code: 'MDS-EVENT-DUPLICATE', mds: [{ file: 'data-types.md', section: 'Events' }] },
  'telemetry-gaps': {
    code: 'MDS-TRIP-TELEMETRY-GAPS',
    mds: [
      { file: 'provider/README.md', section: 'Telemetry' },
      { file: 'data-types.md', section: 'Telemetry' },
    ],
  },
  teleport: {
    code: 'MDS-VEHICLE-TELEPORT',
    mds: [{ file: 'modes/micromobility.md', section: 'State Machine Diagram' }],
  },
  units: {
    code: 'MDS-UNITS',
    mds: [
      { file: 'general-information.md', section: 'Timestamps' },
      { file: 'data-types.md', section: 'Events' },
      { file: 'general-information.md', section: 'Costs and Currencies' },
    ],
  },
  'phantom-trips': { code: 'MDS-TRIP-PHANTOM', mds: [{ file: 'data-types.md', section: 'Trips' }] },
  'hour-coverage': {
    code: 'MDS-HOUR-COVERAGE',
    mds: [
      { file: 'provider/README.md', section: 'Trips - Responses' },
      { file: 'provider/README.md', section: 'Historical Events - Responses' },
    ],
  },
  'status-vs-events': {
    code: 'MDS-STATUS-EVENTS',
    mds: [
      { file: 'provider/README.md', section: 'Vehicle Status' },
      { file: 'data-types.md', section: 'Vehicle Status' },
    ],
  },
  registry: {
    code: 'MDS-REGISTRY-DEVICE',
    mds: [
      { file: 'provider/README.md', section: 'Vehicle Information' },
      { file: 'data-types.md', section: 'Vehicles' },
    ],
  },
  'reports-vs-trips': {
    code: 'MDS-REPORTS-TRIPS',
    mds: [
      { file: 'provider/README.md', section: 'Reports' },
      { file: 'data-types.md', section: 'Reports' },
      { file: 'data-types.md', section: 'Data Notes' },
    ],
  },
  'duplicate-ids': {
    code: 'MDS-ID-DUPLICATE',
    mds: [
      { file: 'data-types.md', section: 'Trips' },
      { file: 'data-types.md', section: 'Events' },
      { file: 'data-types.md', section: 'Telemetry' },
    ],
  },
  'untyped-items': { code: 'MDS-ITEM-UNTYPED', mds: [{ file: 'provider/README.md', section: 'Data Schema' }] },
  'harvest-files': {
    code: 'MDS-HARVEST-FILES',
    mds: [
      { file: 'provider/README.md', section: 'Trips - Query Parameters' },
      { file: 'provider/README.md', section: 'Pagination' },
    ],
  },
  'event-sequence': {
    code: 'MDS-EVENT-SEQUENCE',
    mds: [
      { file: 'modes/micromobility.md', section: 'Vehicle State Events' },
      { file: 'modes/vehicle_states.md', section: 'Mobility Data Specification: Vehicle States' },
    ],
  },
};
