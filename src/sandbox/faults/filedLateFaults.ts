/**
 * The item-hour fault (`--data-faults item-hour`): a parked vehicle's idle telemetry point, recorded in the last minutes
 * of an hour, is answered in `/telemetry` for the next hour: a provider that files points by when they arrived, not by
 * their timestamp. MDS 2.0.2 (provider/README.md, Telemetry - Query Parameters): `telemetry_time` answers the points of
 * that hour. The vehicle stands still around the point, so only the item-hour rule sees it.
 */
import type { MdsTelemetryItem } from '../../core/mds';
import { EPISODE_REACH_HOURS, HOUR_MS, MINUTE_MS } from '../world/episodePlans';
import type { DataFaultRule, FaultWorld } from './faultRules';

export type FiledLateKind = 'filed-late';
export const FILED_LATE_KINDS: readonly (readonly [FiledLateKind, DataFaultRule])[] = [['filed-late', 'item-hour']];

/** How long before it arrived the point was recorded. */
const DELAY_MS = 10 * MINUTE_MS;

/** The time the point was recorded, which it carries: ten minutes before the heartbeat it stands for. */
export const recordedAt = (beat: MdsTelemetryItem): number => beat.timestamp - DELAY_MS;

/**
 * Whether `beat`, the heartbeat of `hour`, can be filed late: recorded ten minutes earlier it lies in the hour before,
 * and no episode of the vehicle comes within a minute of the time between (the vehicle stands where the point says).
 */
export function canFileLate(world: FaultWorld, vehicle: number, hour: number, beat: MdsTelemetryItem): boolean {
  const recorded = recordedAt(beat);
  if (recorded >= hour * HOUR_MS) return false;
  for (let j = hour - 1 - EPISODE_REACH_HOURS; j <= hour; j++) {
    const episode = world.episode(vehicle, j);
    if (episode && episode.endMs >= recorded - MINUTE_MS && episode.startMs <= beat.timestamp + MINUTE_MS) return false;
  }
  return true;
}

/** What the fault does to `beat`, for the listing. */
export function describeFiledLate(beat: MdsTelemetryItem, hour: number): string {
  const recorded = new Date(recordedAt(beat)).toISOString();
  const answered = new Date(hour * HOUR_MS).toISOString().slice(0, 13);
  return `a parked vehicle's telemetry point recorded at ${recorded} is answered in /telemetry?telemetry_time=${answered}, the hour after its own (filed by when it arrived)`;
}
