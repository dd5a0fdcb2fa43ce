/**
 * The snapshot faults of `sandbox --data-faults` (`/vehicles`, `/vehicles/status`, REST and gRPC alike), on a few fixed
 * vehicles: a status whose last_event is the one before the device's last event, a vehicle missing from the status
 * listing, a status whose last_event has an id of its own, a vehicle missing from `/vehicles`, a vehicle listed twice
 * there, two devices under one vehicle_id, and a status that carries another device's last point. What `/vehicles` and
 * `/vehicles/status` show of them, and their listing entries (dataFaults.ts lists them with the hour faults).
 */
import type { MdsEventItem } from '../../core/mds';
import { HOUR_MS } from '../world/episodePlans';
import { hashOf } from '../world/worldRandom';
import { iso } from './episodeFaults';
import type { DataFaultEntry, DataFaultRule, FaultWorld } from './faultRules';
import { PROW, STATUS_CANDIDATES, sharedVehicleIdEntries, skipping, statusEventId } from './snapshotFaults';

/** The vehicles of the snapshot faults of one world. */
export class SnapshotVehicles {
  private snapshotVehicles?: { unregistered: number[]; twice: number[]; sharedId: number[]; foreign: number[] };
  private statusVehicles?: { hour: number; stale: number[]; absent: number[]; renamed: number[] };

  constructor(
    private readonly rules: ReadonlySet<DataFaultRule>,
    private readonly world: FaultWorld,
  ) {}

  private has(rule: DataFaultRule): boolean {
    return this.rules.has(rule);
  }

  /** The fixed vehicles of the registry faults, each a different one. */
  private snapshot(): { unregistered: number[]; twice: number[]; sharedId: number[]; foreign: number[] } {
    if (!this.snapshotVehicles) {
      const size = this.world.size;
      const taken = new Set<number>();
      const pick = (rule: DataFaultRule, salt: number, or: DataFaultRule = rule) => {
        const out: number[] = [];
        if ((!this.has(rule) && !this.has(or)) || size < 16) return out;
        for (let i = 0; out.length < 2 && i < 64; i++) {
          const v = hashOf(this.world.seed, 0x5a9, salt, i) % size;
          if (!taken.has(v)) {
            taken.add(v);
            out.push(v);
          }
        }
        return out.sort((a, b) => a - b);
      };
      this.snapshotVehicles = {
        unregistered: pick('registry', 3, 'registry-status-device'),
        twice: pick('registry', 4),
        sharedId: pick('registry-vehicle-id', 5, 'duplicate-ids'),
        foreign: pick('status-own-items', 6),
      };
    }
    return this.snapshotVehicles;
  }

  /**
   * The vehicles of the status faults as of `nowMs`, chosen anew each hour: among a few candidates, those whose last
   * event (before the hour) is the latest, so that a harvest up to the snapshot holds the events the fault contradicts
   * (`status-vs-events` compares only statuses whose last event is in the harvested hours). A stale one's last two
   * events leave it in different states; an absent one's last event leaves it in the public right-of-way.
   */
  private statusFaultVehicles(nowMs: number): { stale: number[]; absent: number[]; renamed: number[] } {
    const hour = Math.floor(nowMs / HOUR_MS);
    if (this.statusVehicles?.hour !== hour) {
      const size = this.world.size;
      const taken = new Set<number>(Object.values(this.snapshot()).flat());
      const at = hour * HOUR_MS - 1;
      /** `score`: the time that must fall inside the harvest, or undefined when the vehicle does not fit. */
      const pick = (
        salt: number,
        score: (last: MdsEventItem, v: number) => number | undefined,
        rule: DataFaultRule = 'status-vs-events',
      ) => {
        const scored: { v: number; time: number }[] = [];
        if (this.has(rule) && size >= 16) {
          for (let i = 0; i < STATUS_CANDIDATES; i++) {
            const v = hashOf(this.world.seed, 0x5a9, salt, i) % size;
            if (taken.has(v) || scored.some((c) => c.v === v)) continue;
            const time = score(this.world.lastEvent(v, at), v);
            if (time !== undefined) scored.push({ v, time });
          }
        }
        const out = scored
          .sort((a, b) => b.time - a.time || a.v - b.v)
          .slice(0, 2)
          .map((c) => c.v);
        for (const v of out) taken.add(v);
        return out.sort((a, b) => a - b);
      };
      // A stale status shows the event before the last: the rule compares it when that event is in the harvest.
      const stale = pick(1, (last, v) => {
        const shown = this.world.lastEvent(v, last.timestamp - 1);
        return shown.vehicle_state !== last.vehicle_state ? shown.timestamp : undefined;
      });
      const absent = pick(2, (last) => (PROW.has(last.vehicle_state) ? last.timestamp : undefined));
      // A status whose last_event has an id of its own: compared when that event's hour is harvested.
      const renamed = pick(3, (last) => last.timestamp, 'status-last-event');
      this.statusVehicles = { hour, stale, absent, renamed };
    }
    return this.statusVehicles;
  }

  /** Whether the status of `vehicle` at `nowMs` shows a stale last_event. */
  isStaleStatus(vehicle: number, nowMs: number): boolean {
    return this.statusFaultVehicles(nowMs).stale.includes(vehicle);
  }

  /** The status's last_event of `vehicle` at `nowMs`, with a status fault if it has one (a stale one is the world's). */
  statusEvent(vehicle: number, nowMs: number, last: MdsEventItem): MdsEventItem {
    return this.statusFaultVehicles(nowMs).renamed.includes(vehicle)
      ? statusEventId(this.world.seed, vehicle, last)
      : last;
  }

  /**
   * The vehicle whose last point /vehicles/status gives as `vehicle`'s last_telemetry: the other vehicle of the pair
   * when a status feed joins by position in a list (status-own-items), else undefined.
   */
  statusTelemetryVehicle(vehicle: number): number | undefined {
    const [first, second] = this.snapshot().foreign;
    return second !== undefined && vehicle === first ? second : undefined;
  }

  /** The vehicle_id that `/vehicles` gives vehicle `index`, when a fault gives it another device's. */
  sharedVehicleId(index: number): string | undefined {
    const [first, second] = this.snapshot().sharedId;
    return second !== undefined && index === second ? this.world.vehicleIdAt(first) : undefined;
  }

  /** `/vehicles`: how many entries, and which vehicle each position shows (some missing, some twice at the end). */
  vehicleListing(): { count: number; indexAt: (position: number) => number } {
    const { unregistered, twice } = this.snapshot();
    const listed = this.world.size - unregistered.length;
    return {
      count: listed + twice.length,
      indexAt: (p) => (p < listed ? skipping(p, unregistered) : twice[p - listed]),
    };
  }

  /** Whether `/vehicles` leaves vehicle `index` out (a registry fault): `/vehicles/{device_id}` does not know it either. */
  isUnlisted(index: number): boolean {
    return this.snapshot().unregistered.includes(index);
  }

  /** Whether `/vehicles/status` at `nowMs` leaves vehicle `index` out: `/vehicles/status/{device_id}` does not know it either. */
  isStatusAbsent(index: number, nowMs: number): boolean {
    return this.statusFaultVehicles(nowMs).absent.includes(index);
  }

  /** `/vehicles/status` at `nowMs`: how many entries, and which vehicle each position shows (some missing). */
  statusListing(nowMs: number): { count: number; indexAt: (position: number) => number } {
    const { absent } = this.statusFaultVehicles(nowMs);
    return { count: this.world.size - absent.length, indexAt: (p) => skipping(p, absent) };
  }

  /**
   * The snapshot's faults as they meet a harvest of the hours [fromHour, toHour] with a snapshot taken at `nowMs` (see
   * DataFaults.list): the status faults where `check`'s status-vs-events sees them, the vehicles missing from or
   * listed twice in /vehicles, and the vehicles /vehicles/status lists but /vehicles does not.
   */
  statusEntries(fromHour: number, toHour: number, nowMs: number): DataFaultEntry[] {
    const out: DataFaultEntry[] = [];
    const start = fromHour * HOUR_MS;
    const end = Math.min((toHour + 1) * HOUR_MS, nowMs + 1);
    /** The device's last event inside the window, as the harvest holds it, or undefined. */
    const lastInWindow = (v: number): MdsEventItem | undefined => {
      if (end <= start) return undefined;
      try {
        const last = this.world.lastEvent(v, end - 1);
        return last.timestamp >= start ? last : undefined;
      } catch {
        return undefined;
      }
    };
    const { unregistered, twice } = this.snapshot();
    const { stale, absent, renamed } = this.statusFaultVehicles(nowMs);
    for (const v of stale) {
      const last = this.world.lastEvent(v, nowMs);
      const shown = this.world.lastEvent(v, last.timestamp - 1);
      const seen = lastInWindow(v);
      if (shown.timestamp < start || shown.timestamp >= end || !seen || seen.vehicle_state === shown.vehicle_state)
        continue;
      out.push({
        rule: 'status-vs-events',
        device_id: seen.device_id,
        trip_id: null,
        time: iso(seen.timestamp),
        detail: `/vehicles/status shows the event before the last as last_event (${shown.vehicle_state}), but the device's last event (${seen.event_types.join(', ')}) leaves it ${seen.vehicle_state}`,
      });
    }
    for (const v of absent) {
      const seen = lastInWindow(v);
      if (!seen || !PROW.has(seen.vehicle_state)) continue;
      out.push({
        rule: 'status-vs-events',
        device_id: seen.device_id,
        trip_id: null,
        time: iso(seen.timestamp),
        detail: `absent from /vehicles/status, while its last event leaves it ${seen.vehicle_state}, in the public right-of-way`,
      });
    }
    for (const v of renamed) {
      const last = this.world.lastEvent(v, nowMs);
      if (last.timestamp < start || last.timestamp >= end) continue;
      out.push({
        rule: 'status-last-event',
        device_id: last.device_id,
        trip_id: last.trip_ids?.[0] ?? null,
        time: iso(last.timestamp),
        detail: `/vehicles/status gives its last_event (${last.event_types.join(', ')}) the event_id ${statusEventId(this.world.seed, v, last).event_id}, where /events/historical serves it as ${last.event_id}`,
      });
    }
    const hasItem = (v: number) =>
      lastInWindow(v) !== undefined ||
      Array.from({ length: Math.max(0, toHour - fromHour + 1) }, (_, i) => fromHour + i).some(
        (h) => (h + 1) * HOUR_MS <= end && this.world.baseHeartbeat(v, h) !== undefined,
      );
    for (const v of unregistered)
      if (hasItem(v))
        out.push({
          rule: 'registry',
          device_id: this.world.deviceIdAt(v),
          trip_id: null,
          time: null,
          detail: 'missing from /vehicles, while its trips, events and telemetry are served',
        });
    for (const v of twice)
      out.push({
        rule: 'registry',
        device_id: this.world.deviceIdAt(v),
        trip_id: null,
        time: null,
        detail: 'listed twice in /vehicles',
      });
    // The vehicles missing from /vehicles are still in /vehicles/status: the rule sees them whatever the window, at their status's last_event.
    for (const v of unregistered) {
      const last = this.world.lastEvent(v, nowMs);
      out.push({
        rule: 'registry-status-device',
        device_id: last.device_id,
        trip_id: last.trip_ids?.[0] ?? null,
        time: iso(last.timestamp),
        detail: `listed by /vehicles/status (${last.vehicle_state}), but missing from /vehicles`,
      });
    }
    return out;
  }

  /** The status that carries another device's last point (status-own-items), as of `nowMs`. */
  foreignEntries(nowMs: number): DataFaultEntry[] {
    const out: DataFaultEntry[] = [];
    const [joined, other] = this.snapshot().foreign;
    const point = other === undefined ? undefined : this.world.lastTelemetry(other, nowMs);
    if (point)
      out.push({
        rule: 'status-own-items',
        device_id: this.world.deviceIdAt(joined),
        trip_id: point.trip_ids?.[0] ?? null,
        time: iso(point.timestamp),
        detail: `/vehicles/status gives it the last_telemetry of device ${point.device_id} (a status feed joined by position, not by device_id)`,
      });
    return out;
  }

  /** The two devices under one vehicle_id (registry-vehicle-id, duplicate-ids). */
  sharedIdEntries(): DataFaultEntry[] {
    const out: DataFaultEntry[] = [];
    const { sharedId } = this.snapshot();
    if (sharedId.length === 2)
      out.push(
        ...sharedVehicleIdEntries(
          [this.world.deviceIdAt(sharedId[0]), this.world.deviceIdAt(sharedId[1])],
          this.world.vehicleIdAt(sharedId[0]),
        ),
      );
    return out;
  }
}
