/**
 * The data faults' rules and what they read of the world (`sandbox --data-faults`): the rule ids of `mobility-api
 * check`, their parsing, the listing's entries.
 */
import { MobilityError } from '../../core/base';
import type { MdsEventItem, MdsTelemetryItem, MdsTrip } from '../../core/mds';
import type { EpisodeItems } from '../world/episodeDetails';
import type { EpisodePlan } from '../world/episodePlans';

/** The rules of `mobility-api check`, in its order; `--data-faults` takes these ids. */
export const DATA_FAULT_RULES = [
  'event-sequence',
  'trip-events',
  'duplicate-events',
  'telemetry-gaps',
  'teleport',
  'units',
  'phantom-trips',
  'status-vs-events',
  'hour-coverage',
  'registry',
  'reports-vs-trips',
  'trip-duration',
  'trip-distance',
  'telemetry-speed',
  'trip-telemetry-coverage',
  'idle-drift',
  'range-coordinates',
  'range-area',
  'range-battery',
  'range-heading',
  'range-accuracy',
  'range-timestamp-unit',
  'registry-vehicle-id',
  'registry-status-device',
  'status-last-event',
  'publication-before-time',
  'hour-pending-long',
  'trip-start-unfinished',
  'duplicate-ids',
  'untyped-items',
  'provider-id',
  'vehicle-stale',
  'telemetry-speed-unit',
  'status-own-items',
  'harvest-files',
  'item-hour',
  'publication-late',
  'publication-latency',
  'trip-outside-window',
] as const;

/**
 * The rules of check whose faults the sandbox does not inject, and why: `GET /_sandbox/data-faults` lists each (asked
 * for, or with all) as an entry with `unseen`, so that no rule is silently absent.
 */
export const NOT_INJECTED: Readonly<Partial<Record<DataFaultRule, string>>> = {
  'harvest-files':
    "the rule checks the harvest's own files against its manifest (lines lost, a wrong endpoint, a file the manifest does not list); a server cannot make a harvest write its files wrong",
  'publication-latency':
    "a measurement, not a fault: it gives per hour the latency of the items that carry a publication_time (here, the publication-before-time fault's trips)",
  'trip-outside-window':
    "a measurement, not a fault: it lists the trips across the window's edges, which every window has",
};

export type DataFaultRule = (typeof DATA_FAULT_RULES)[number];

/** One injected fault, as `GET /_sandbox/data-faults` lists it. */
export interface DataFaultEntry {
  rule: DataFaultRule;
  device_id: string | null;
  trip_id: string | null;
  /** ISO 8601 (UTC): when it happened (the real time, also for a timestamp sent in seconds); null for registry faults. */
  time: string | null;
  detail: string;
  /** Why a harvest of the window asked for cannot show it (yet), when it cannot: the fault is there, its rule will not see it. */
  unseen?: string;
}

export function isDataFaultRule(value: string): value is DataFaultRule {
  return (DATA_FAULT_RULES as readonly string[]).includes(value);
}

/**
 * Reads `all` or a comma-separated list of rule ids. Throws `error` (a code and a message) naming the id that is not
 * a rule.
 */
export function parseDataFaults(
  text: string,
  error: (message: string) => Error,
  name = '--data-faults',
): DataFaultRule[] {
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.length === 1 && parts[0] === 'all') return [...DATA_FAULT_RULES];
  if (!parts.length)
    throw error(`${name} is empty; give all, or rule ids separated by commas: ${DATA_FAULT_RULES.join(', ')}.`);
  for (const part of parts) {
    if (!isDataFaultRule(part))
      throw error(
        `${name}: ${JSON.stringify(part)} is not a rule of mobility-api check; use all, or some of ${DATA_FAULT_RULES.join(', ')}.`,
      );
  }
  return [...new Set(parts as DataFaultRule[])];
}

/** Checks the `dataFaults` option of startSandbox. */
export function checkDataFaultsOption(given: unknown): DataFaultRule[] {
  if (given === undefined) return [];
  if (given === 'all') return [...DATA_FAULT_RULES];
  const invalid = (message: string) => new MobilityError('SANDBOX_OPTIONS_INVALID', `The sandbox option ${message}`);
  if (!Array.isArray(given) || given.some((g) => typeof g !== 'string'))
    throw invalid(
      `dataFaults is ${JSON.stringify(given)}; give 'all' or a list of rule ids (${DATA_FAULT_RULES.join(', ')}).`,
    );
  return parseDataFaults((given as string[]).join(','), invalid, 'dataFaults');
}

/** What the faults read of the world, without faults. */
export interface FaultWorld {
  readonly seed: number;
  readonly size: number;
  deviceIdAt(vehicle: number): string;
  /** The vehicle_id of a vehicle, without faults. */
  vehicleIdAt(vehicle: number): string;
  /** The episode drawn in `hour` that really happens (quiet hours already applied). */
  episode(vehicle: number, hour: number): EpisodePlan | undefined;
  /** The items of an episode, without faults. */
  baseItemsOf(plan: EpisodePlan): EpisodeItems;
  /** The idle telemetry point of a vehicle in an hour, without faults. */
  baseHeartbeat(vehicle: number, hour: number): MdsTelemetryItem | undefined;
  /** The latest event at or before `nowMs`, with the item faults (as the events endpoints serve it). */
  lastEvent(vehicle: number, nowMs: number): MdsEventItem;
  /** The latest point at or before `nowMs` (what /vehicles/status gives as last_telemetry), if any. */
  lastTelemetry(vehicle: number, nowMs: number): MdsTelemetryItem | undefined;
  /** The events and the trips (by end_time) of an hour, with faults. */
  hourItems(hour: number): { events: MdsEventItem[]; trips: MdsTrip[] };
}
