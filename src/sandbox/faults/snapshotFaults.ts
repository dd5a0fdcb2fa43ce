/**
 * The snapshot and clock faults of issue 39's rules. The snapshot faults of its registry rules (`sandbox --data-faults`), as a provider's registry or status feed
 * gets them wrong: two devices of /vehicles under one vehicle_id (a sticker reused on a replacement vehicle:
 * registry-vehicle-id), and a /vehicles/status last_event whose event_id /events/historical never served (a status
 * feed that mints its own ids: status-last-event). A /vehicles/status device that /vehicles lacks
 * (registry-status-device) is the registry fault's vehicle missing from /vehicles, in snapshotVehicles.ts.
 *
 * An hour that stays 202 (the hour-coverage fault) is hour-pending-long's once a harvest asks for it pendingHours after
 * it ended: the sandbox lists it by its own clock, with why it is not seen yet before then.
 */
import type { MdsEventItem } from '../../core/mds';
import { HOUR_MS } from '../world/episodePlans';
import { worldUuid } from '../world/worldRandom';
import type { DataFaultEntry } from './faultRules';

/** check's pendingHours: an hour still 202 this long after it ended is an hour-pending-long finding. */
const PENDING_MS = 24 * HOUR_MS;
const iso = (ms: number) => new Date(ms).toISOString();

/** The serial of the event_id a status feed mints (worldUuid takes serials below 4096; episode faults use 4000 to 4002). */
const STATUS_SERIAL = 4090;

/** The last_event of a status whose feed minted its own event_id: the same event under another id. */
export function statusEventId(seed: number, vehicle: number, event: MdsEventItem): MdsEventItem {
  return {
    ...event,
    event_id: worldUuid(seed, 'event', vehicle, Math.floor(event.timestamp / HOUR_MS), STATUS_SERIAL),
  };
}

/** The listing entries of two devices sharing one vehicle_id: both are findings of the rule. */
export function sharedVehicleIdEntries(devices: readonly [string, string], vehicleId: string): DataFaultEntry[] {
  const entries: DataFaultEntry[] = devices.map((device, i) => ({
    rule: 'registry-vehicle-id' as const,
    device_id: device,
    trip_id: null,
    time: null,
    detail: `/vehicles gives it the vehicle_id ${vehicleId}, which ${i === 0 ? 'a second device' : 'another device'} (${devices[1 - i]}) carries too`,
  }));
  // duplicate-ids reports a vehicle_id of two devices once, under the first device (by id).
  const first = [...devices].sort()[0];
  return [
    ...entries,
    {
      rule: 'duplicate-ids',
      device_id: first,
      trip_id: null,
      time: null,
      detail: `/vehicles vehicle_id ${vehicleId} is used by two devices (the registry-vehicle-id fault, seen by duplicate-ids too)`,
    },
  ];
}

/**
 * An hour that stays 202 as hour-pending-long sees it: when a harvest asks for it more than pendingHours after it ended.
 * The sandbox takes its own clock for the time of asking; before then the entry says why it is not seen yet.
 */
export function pendingHourEntry(hour: number, nowMs: number): DataFaultEntry {
  const end = (hour + 1) * HOUR_MS;
  const entry: DataFaultEntry = {
    rule: 'hour-pending-long',
    device_id: null,
    trip_id: null,
    time: iso(hour * HOUR_MS),
    detail: `an hour that stays 202: /trips, /events/historical and /telemetry still answer 202 for it ${PENDING_MS / HOUR_MS} h after it ended (from ${iso(end + PENDING_MS)}), and always`,
  };
  if (nowMs - end > PENDING_MS) return entry;
  return {
    ...entry,
    unseen: `the hour ended ${((nowMs - end) / HOUR_MS).toFixed(1)} h before now (${iso(nowMs)}): a harvest sees it stay 202 for long only when it asks after ${iso(end + PENDING_MS)}`,
  };
}

/** The vehicle states in the public right-of-way (modes/vehicle_states.md), as `check`'s status-vs-events takes them. */
export const PROW = new Set<string>([
  'available',
  'non_operational',
  'reserved',
  'on_trip',
  'stopped',
  'non_contactable',
]);
/** How many vehicles each status fault looks at to find the most recently active ones. */
export const STATUS_CANDIDATES = 48;

/** The `position`-th index of 0, 1, 2… when the sorted `skipped` indexes are left out. */
export function skipping(position: number, skipped: readonly number[]): number {
  let index = position;
  for (const s of skipped) if (s <= index) index++;
  return index;
}
