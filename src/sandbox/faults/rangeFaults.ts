/**
 * The idle telemetry faults of issue 39's range rules (`sandbox --data-faults`), each on a parked vehicle's hourly
 * point, as a buggy provider or device sends it: a position without a GPS fix (0, 0: outside the provider's area), a
 * position in integer microdegrees (not WGS 84 degrees), a battery of -1 (unknown), a heading signed from -180 to 180,
 * an accuracy of 65535 m (a receiver's "no estimate"), a timestamp in microseconds. The faults of the older kinds that
 * these rules also see (a timestamp in seconds, lat and lng swapped, a battery per mille) are listed for them too
 * (ALSO_RULES).
 */
import type { MdsTelemetryItem } from '../../core/mds';
import { hashOf } from '../world/worldRandom';
import type { DataFaultRule } from './faultRules';

export type RangeBeatKind = 'null-island' | 'microdegrees' | 'battery-unknown' | 'heading-signed' | 'accuracy-sentinel' | 'microseconds';

export const RANGE_BEAT_KINDS: readonly (readonly [RangeBeatKind, DataFaultRule])[] = [
  ['null-island', 'range-area'],
  ['microdegrees', 'range-coordinates'],
  ['battery-unknown', 'range-battery'],
  ['heading-signed', 'range-heading'],
  ['accuracy-sentinel', 'range-accuracy'],
  ['microseconds', 'range-timestamp-unit'],
];

/** The other rules that see a fault of an older kind, and so select it too (`--data-faults range-area` injects swapped points). */
export const ALSO_RULES: Readonly<Record<string, readonly DataFaultRule[]>> = {
  seconds: ['range-timestamp-unit'],
  swapped: ['range-area'],
  battery: ['range-battery'],
  'never-ended': ['trip-start-unfinished'],
};

/** An accuracy a GPS receiver reports when it has no estimate (the largest 16-bit value), far above check's maxAccuracyMeters (1000). */
const NO_ESTIMATE_METRES = 65535;

export function isRangeBeatKind(kind: string): kind is RangeBeatKind {
  return RANGE_BEAT_KINDS.some(([k]) => k === kind);
}

/** What the fault of `kind` does to `beat`, as the listing says it; the time stays the point's real time. */
export function describeRangeBeat(kind: RangeBeatKind, beat: MdsTelemetryItem, seed: number): string {
  const faulty = applyRangeBeat(kind, beat, seed, true);
  switch (kind) {
    case 'null-island':
      return `a telemetry point at lat 0, lng 0 (a position without a GPS fix) instead of ${beat.location.lat}, ${beat.location.lng}: far outside the provider's area`;
    case 'microdegrees':
      return `a telemetry location in integer microdegrees: lat ${faulty.location.lat}, lng ${faulty.location.lng} (schema finding: lat above the maximum 90)`;
    case 'battery-unknown':
      return `a telemetry battery_percent of -1 (unknown) instead of ${beat.battery_percent ?? ''} (schema finding: below the minimum 0)`;
    case 'heading-signed':
      return `a telemetry heading of ${faulty.location.heading ?? ''}: signed from -180 to 180, where MDS counts 0 to 360 clockwise from north`;
    case 'accuracy-sentinel':
      return `a telemetry horizontal_accuracy of ${NO_ESTIMATE_METRES} m (the receiver's "no estimate") instead of ${beat.location.horizontal_accuracy ?? ''} m`;
    case 'microseconds':
      return `a telemetry timestamp in microseconds: ${faulty.timestamp} instead of ${beat.timestamp}`;
  }
}

/**
 * The idle point with the fault of `kind`. `afterRange`: the timestamp may change now (the hour's range was read); the
 * other changes are made before, so that every reader of the point sees them.
 */
export function applyRangeBeat(kind: RangeBeatKind, beat: MdsTelemetryItem, seed: number, afterRange: boolean): MdsTelemetryItem {
  const location = { ...beat.location };
  switch (kind) {
    case 'null-island':
      return { ...beat, location: { ...location, lat: 0, lng: 0 } };
    case 'microdegrees':
      return { ...beat, location: { ...location, lat: Math.round(location.lat * 1e6), lng: Math.round(location.lng * 1e6) } };
    case 'battery-unknown':
      return { ...beat, battery_percent: -1 };
    case 'heading-signed':
      return { ...beat, location: { ...location, heading: -(1 + (hashOf(seed, 0x4ead, Math.floor(beat.timestamp / 1000)) % 179)) } };
    case 'accuracy-sentinel':
      return { ...beat, location: { ...location, horizontal_accuracy: NO_ESTIMATE_METRES } };
    case 'microseconds':
      return afterRange ? { ...beat, timestamp: beat.timestamp * 1000 } : beat;
  }
}
