/**
 * The stale vehicle of issue 39's vehicle-stale rule (`sandbox --data-faults`): a vehicle the provider leaves in the
 * public right-of-way and forgets. MDS 2.0.2 (modes/vehicle_states.md) has every vehicle in the street in a PROW
 * state, and /vehicles/status lists it; a vehicle that stays `available` with no event for more than check's
 * staleHours (48 h, as LADOT's compliance engine and SFMTA's counts use) is a stale vehicle.
 *
 * Each day one vehicle goes silent after its nightly service: no episode of it happens (no ride, no service) until its
 * nightly service four days later. It still sends its hourly position (a parked vehicle that reports where it stands),
 * but no event, so /vehicles/status shows the drop-off of its last service as last_event. Its silence is decided by
 * the calendar and the seed alone (never by another fault), so nothing here asks for the plans of earlier hours.
 */
import type { MdsEventItem } from '../../core/mds';
import type { EpisodeItems } from '../world/episodeDetails';
import type { EpisodePlan } from '../world/episodePlans';
import { HOUR_MS, serviceHourOfDay } from '../world/episodePlans';
import { hashOf } from '../world/worldRandom';
import type { DataFaultEntry } from './faultRules';

/** check's staleHours: a vehicle in the PROW with no event for longer is stale. */
const STALE_MS = 48 * HOUR_MS;
/** How many nightly services a silent vehicle misses. */
const SILENT_DAYS = 4;
const DAY_HOURS = 24;
const iso = (ms: number) => new Date(ms).toISOString();

interface StaleWorld {
  readonly seed: number;
  readonly size: number;
  deviceIdAt(vehicle: number): string;
  episode(vehicle: number, hour: number): EpisodePlan | undefined;
  baseItemsOf(plan: EpisodePlan): EpisodeItems;
}

/** One silence: the vehicle, its last event before it, and when its next event comes (the service that ends it). */
interface Silence {
  vehicle: number;
  last: MdsEventItem;
  nextMs: number;
}

export class StaleVehicles {
  constructor(private readonly world: StaleWorld) {}

  /** The vehicle drawn for day `day` (days since the epoch). */
  private drawn(day: number): number {
    return hashOf(this.world.seed, 0x57a1e, day) % this.world.size;
  }

  /** The vehicle that goes silent after its service of day `day`, unless it is silent already (drawn on one of the days before). */
  private vehicleOf(day: number): number | undefined {
    if (this.world.size < 16) return undefined;
    const v = this.drawn(day);
    for (let d = day - SILENT_DAYS; d < day; d++) if (this.drawn(d) === v) return undefined;
    return v;
  }

  /** The hour of `vehicle`'s nightly service on day `day`. */
  private serviceHour(vehicle: number, day: number): number {
    return day * DAY_HOURS + serviceHourOfDay(this.world.seed, vehicle, day);
  }

  /** Whether no episode of `vehicle` starting in `hour` happens: it is silent. */
  isSilent(vehicle: number, hour: number): boolean {
    const today = Math.floor(hour / DAY_HOURS);
    for (let day = today - SILENT_DAYS; day <= today; day++) {
      if (this.vehicleOf(day) !== vehicle) continue;
      if (hour > this.serviceHour(vehicle, day) && hour < this.serviceHour(vehicle, day + SILENT_DAYS)) return true;
    }
    return false;
  }

  /** The silence that begins on day `day`, if any: its last event is the end of that night's service (never silent itself). */
  private silence(day: number): Silence | undefined {
    const vehicle = this.vehicleOf(day);
    if (vehicle === undefined) return undefined;
    const service = this.world.episode(vehicle, this.serviceHour(vehicle, day));
    const next = this.world.episode(vehicle, this.serviceHour(vehicle, day + SILENT_DAYS));
    const last = service && this.world.baseItemsOf(service).events.at(-1);
    return last && next ? { vehicle, last, nextMs: next.startMs } : undefined;
  }

  /**
   * The stale vehicles a harvest of [startMs, endMs) with a snapshot at `nowMs` meets: check sees one in the events
   * when its last event is in the window and the window goes on for staleHours after it with no other event, and in
   * /vehicles/status when the snapshot is taken more than staleHours after its last event, before it wakes up. A
   * silence that overlaps the window but neither shows says why.
   */
  list(startMs: number, endMs: number, nowMs: number): DataFaultEntry[] {
    const out: DataFaultEntry[] = [];
    const days = new Set<number>();
    const dayOf = (ms: number) => Math.floor(ms / (DAY_HOURS * HOUR_MS));
    for (let d = dayOf(startMs) - SILENT_DAYS - 1; d <= dayOf(endMs); d++) days.add(d);
    for (let d = dayOf(nowMs) - SILENT_DAYS - 1; d <= dayOf(nowMs); d++) days.add(d);
    for (const day of [...days].sort((a, b) => a - b)) {
      const s = this.silence(day);
      if (!s || s.last.timestamp > nowMs) continue;
      const lastMs = s.last.timestamp;
      const quietUntil = s.nextMs < endMs ? s.nextMs : endMs;
      const byEvents = lastMs >= startMs && lastMs < endMs && quietUntil - lastMs > STALE_MS;
      const byStatus = nowMs - lastMs > STALE_MS && nowMs < s.nextMs;
      const detail = `left ${s.last.vehicle_state} in the public right-of-way by its ${s.last.event_types.join(', ')} at ${iso(lastMs)}, then no event until ${iso(s.nextMs)} (${Math.round((s.nextMs - lastMs) / HOUR_MS)} h): it still reports its position every hour`;
      const entry: DataFaultEntry = {
        rule: 'vehicle-stale',
        device_id: s.last.device_id,
        trip_id: null,
        time: iso(lastMs),
        detail,
      };
      if (byEvents || byStatus) out.push(entry);
      else if (lastMs < endMs && s.nextMs > startMs) {
        out.push({
          ...entry,
          unseen: `stale from ${iso(lastMs + STALE_MS)}: a harvest sees it in a /vehicles/status snapshot taken between then and ${iso(s.nextMs)}, or in a window that holds its last event and goes on to then`,
        });
      }
    }
    return out;
  }
}
