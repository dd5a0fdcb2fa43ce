/**
 * The idle telemetry faults of issue 39's range rules (`sandbox --data-faults`), each on a parked vehicle's hourly
 * point, as a buggy provider or device sends it: a position without a GPS fix (0, 0: outside the provider's area), a
 * position in integer microdegrees (not WGS 84 degrees), a battery of -1 (unknown), a heading signed from -180 to 180,
 * an accuracy of 65535 m (a receiver's "no estimate"), a timestamp in microseconds. The faults of the older kinds that
 * these rules also see (a timestamp in seconds, lat and lng swapped, a battery per mille) are listed for them too
 * (ALSO_RULES). Two more, of the rules that keep every item: a battery_percent written as text ("79%", untyped-items) and a
 * point whose provider_id is another provider's (an aggregator mixing two feeds: provider-id).
 */
import type { MdsTelemetryItem } from '../../core/mds';
import { HOUR_MS } from '../world/episodePlans';
import { hashOf } from '../world/worldRandom';
import type { DataFaultRule, FaultWorld } from './faultRules';

/** How long a vehicle whose point is sent in microseconds stays parked after it. */
const PARKED_LONG_MS = 24 * HOUR_MS;

export type RangeBeatKind =
  | 'null-island'
  | 'microdegrees'
  | 'battery-unknown'
  | 'heading-signed'
  | 'accuracy-sentinel'
  | 'microseconds'
  | 'battery-text'
  | 'other-provider';

export const RANGE_BEAT_KINDS: readonly (readonly [RangeBeatKind, DataFaultRule])[] = [
  ['null-island', 'range-area'],
  ['microdegrees', 'range-coordinates'],
  ['battery-unknown', 'range-battery'],
  ['heading-signed', 'range-heading'],
  ['accuracy-sentinel', 'range-accuracy'],
  ['microseconds', 'range-timestamp-unit'],
  ['battery-text', 'untyped-items'],
  ['other-provider', 'provider-id'],
];

/** The provider_id an aggregator's feed gives one point of another provider's device (a fixed UUID, not the sandbox's). */
export const OTHER_PROVIDER_ID = 'b0a7e5d1-2f4c-4e6a-9c3b-7d8e9f0a1b2c';

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
    case 'battery-text':
      return `a telemetry battery_percent of "${beat.battery_percent ?? ''}%", a string where MDS asks for an integer (schema finding: not an integer); check sets the point aside, untyped`;
    case 'other-provider':
      return `a telemetry point whose provider_id is ${OTHER_PROVIDER_ID}, another provider's, where every other item of the device gives the sandbox's`;
  }
}

/**
 * The idle point with the fault of `kind`. `afterRange`: the timestamp may change now (the hour's range was read); the
 * other changes are made before, so that every reader of the point sees them.
 */
export function applyRangeBeat(
  kind: RangeBeatKind,
  beat: MdsTelemetryItem,
  seed: number,
  afterRange: boolean,
): MdsTelemetryItem {
  const location = { ...beat.location };
  switch (kind) {
    case 'null-island':
      return { ...beat, location: { ...location, lat: 0, lng: 0 } };
    case 'microdegrees':
      return {
        ...beat,
        location: { ...location, lat: Math.round(location.lat * 1e6), lng: Math.round(location.lng * 1e6) },
      };
    case 'battery-unknown':
      return { ...beat, battery_percent: -1 };
    case 'heading-signed':
      return {
        ...beat,
        location: { ...location, heading: -(1 + (hashOf(seed, 0x4ead, Math.floor(beat.timestamp / 1000)) % 179)) },
      };
    case 'accuracy-sentinel':
      return { ...beat, location: { ...location, horizontal_accuracy: NO_ESTIMATE_METRES } };
    case 'microseconds':
      return afterRange ? { ...beat, timestamp: beat.timestamp * 1000 } : beat;
    case 'battery-text':
      // A string where the model has an integer: the item a feed writes from a display value.
      return { ...beat, battery_percent: `${beat.battery_percent ?? 0}%` as unknown as number };
    case 'other-provider':
      return { ...beat, provider_id: OTHER_PROVIDER_ID };
  }
}

/**
 * Whether the vehicle's last event before `ms` is in the same hour and leaves it parked: a harvest of the hour holds
 * where the vehicle stood before its heartbeat drifts. Read from the hour's own episode, without faults (a vehicle
 * chosen here has no episode fault): asking the world for its last event would compute the faults of the hours
 * before, each asking for the hours before it (measured: /vehicles/status of the faulty world 38 s instead of 10).
 */
export function parkedInHour(world: FaultWorld, vehicle: number, hour: number, ms: number): boolean {
  const plan = world.episode(vehicle, hour);
  if (!plan) return false;
  const last = world
    .baseItemsOf(plan)
    .events.filter((e) => e.timestamp < ms)
    .at(-1);
  return (
    !!last &&
    last.timestamp >= Math.floor(ms / HOUR_MS) * HOUR_MS &&
    ['available', 'non_operational', 'reserved'].includes(last.vehicle_state)
  );
}

/**
 * Whether the vehicle stands where it is at `ms` for a day after it: no event of it in the next 24 hours, so that a point
 * sent with a timestamp in microseconds (ordered after everything else) lies where the vehicle's last event left it.
 */
export function parkedLong(world: FaultWorld, vehicle: number, hour: number, ms: number): boolean {
  if (!parkedInHour(world, vehicle, hour, ms)) return false;
  // The episodes as drawn, without faults: reading the events with faults here would choose the next day's faults first.
  for (let h = Math.floor(ms / HOUR_MS); h <= Math.floor((ms + PARKED_LONG_MS) / HOUR_MS); h++) {
    const episode = world.episode(vehicle, h);
    if (episode && episode.endMs >= ms && episode.startMs <= ms + PARKED_LONG_MS) return false;
  }
  return true;
}
