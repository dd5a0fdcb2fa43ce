/**
 * Data faults (`sandbox --data-faults`): deterministic instances of each kind of fault that the data-quality rules of
 * `mobility-api check` look for, put into the synthetic world, so that a harvest meets them and `check` can be seen to
 * find them. Without the option the world is untouched.
 *
 * Where they live:
 * - per busy hour (Berlin 08:00 to 20:59), in episodes that begin and end inside that hour: one instance of each
 *   item kind (a trip without its events on time, an event twice, telemetry with a gap, a jump, values in other units, a
 *   phantom trip, a transition the state machine forbids), each on another vehicle;
 * - hour coverage by the calendar: at Berlin 08, 12, 16 and 20 h an outage (nothing happens; the hour endpoints answer
 *   200 with empty lists), at 10, 14 and 18 h an hour that stays 202 (nothing happens either, and the hour is never
 *   processed). Nothing happening in them keeps the neighbouring hours whole, so no other rule sees these hours;
 * - in the snapshot (`/vehicles`, `/vehicles/status`, REST and gRPC alike), on a few fixed vehicles: a status whose
 *   last_event is the one before the device's last event, a vehicle missing from the status listing, a vehicle missing
 *   from `/vehicles`, and a vehicle listed twice there.
 *
 * Rules and entries: faultRules.ts; item faults: episodeFaults.ts. A fault changes only its own episode's items (found
 * by its rule and no other); the selection reads the world without faults, so nothing here depends on itself.
 */
import type { MdsEventItem, MdsTelemetryItem } from '../../core/mds';
import type { EpisodeItems } from '../world/episodeDetails';
import type { EpisodePlan } from '../world/episodePlans';
import { HOUR_MS } from '../world/episodePlans';
import { cityHourOf, offsetBy } from '../world/worldGeography';
import { hashOf } from '../world/worldRandom';
import type { BeatFaultKind, EpisodeFaultKind } from './episodeFaults';
import { BEAT_KINDS, EPISODE_KINDS, applyEpisodeFault, describeEpisodeFault, iso } from './episodeFaults';
import type { DataFaultEntry, DataFaultRule, FaultWorld } from './faultRules';
import type { RangeBeatKind } from './rangeFaults';
import { ALSO_RULES, RANGE_BEAT_KINDS, applyRangeBeat, describeRangeBeat, isRangeBeatKind, parkedInHour, parkedLong } from './rangeFaults';
import { PROW, STATUS_CANDIDATES, pendingHourEntry, sharedVehicleIdEntries, skipping, statusEventId } from './snapshotFaults';
import { StaleVehicles } from './staleFaults';
import { crossesLateHour, isLateHour, lateHourEntries, publishedAt, stampLate } from './lateFaults';

export type { DataFaultEntry, DataFaultRule, FaultWorld } from './faultRules';
export { DATA_FAULT_RULES, checkDataFaultsOption, isDataFaultRule, parseDataFaults } from './faultRules';
import { NOT_INJECTED } from './faultRules';

/** How many vehicles the selection of one kind looks at before it gives up for that hour. */
const SCAN_LIMIT = 5000;
const PLAN_CACHE = 2000;

/** Berlin hours of the outages (200, empty) and of the hours that stay 202: every four hours, so that any six busy hours hold one of each inside. */
const OUTAGE_LOCAL_HOURS: readonly number[] = [8, 12, 16, 20];
const STUCK_LOCAL_HOURS: readonly number[] = [10, 14, 18];
const BUSY_LOCAL_HOURS = { from: 8, to: 20 };
/** How far a parked vehicle's heartbeat drifts (check's idle-drift threshold is 500 m). */
const DRIFT_METRES = 3000;
interface EpisodeChoice {
  kind: EpisodeFaultKind;
  rule: DataFaultRule;
  vehicle: number;
  hour: number;
  /** The trip or event the fault is about, by id. */
  target: string;
}

interface BeatChoice {
  kind: BeatFaultKind | RangeBeatKind;
  rule: DataFaultRule;
  vehicle: number;
  hour: number;
}

interface HourPlan {
  episodes: Map<number, EpisodeChoice>;
  beats: Map<number, BeatChoice>;
  entries: DataFaultEntry[];
}


/** The data faults of one world. */
export class DataFaults {
  readonly rules: ReadonlySet<DataFaultRule>;
  private readonly plans = new Map<number, HourPlan>();
  private snapshotVehicles?: { unregistered: number[]; twice: number[]; sharedId: number[]; foreign: number[] };
  private statusVehicles?: { hour: number; stale: number[]; absent: number[]; renamed: number[] };

  private readonly stale?: StaleVehicles;

  constructor(rules: readonly DataFaultRule[], private readonly world: FaultWorld) {
    this.rules = new Set(rules);
    if (this.has('vehicle-stale')) this.stale = new StaleVehicles(world);
  }

  /** Whether `vehicle` is silent in `hour` (a stale vehicle, staleFaults.ts): no episode of it starting then happens. */
  isSilent(vehicle: number, hour: number): boolean {
    return this.stale?.isSilent(vehicle, hour) ?? false;
  }

  private has(rule: DataFaultRule): boolean {
    return this.rules.has(rule);
  }

  /** Whether a fault of `kind` is injected: its rule is asked for, or another rule that sees it too (ALSO_RULES). */
  private selects(kind: string, rule: DataFaultRule): boolean {
    return this.has(rule) || (Object.hasOwn(ALSO_RULES, kind) && ALSO_RULES[kind].some((r) => this.has(r)));
  }

  /** The entries of the other rules that see `entry`'s fault of `kind` too. */
  private alsoEntries(kind: string, entry: DataFaultEntry): DataFaultEntry[] {
    return (Object.hasOwn(ALSO_RULES, kind) ? ALSO_RULES[kind] : []).map((rule) => ({ ...entry, rule, detail: `${entry.detail} (the ${entry.rule} fault, seen by ${rule} too)` }));
  }

  private localHour(hour: number): number {
    return cityHourOf(hour * HOUR_MS);
  }

  /** An outage hour: nothing happens, the hour endpoints answer 200 with empty lists. */
  isOutageHour(hour: number): boolean {
    return this.has('hour-coverage') && OUTAGE_LOCAL_HOURS.includes(this.localHour(hour));
  }

  /** A late hour (publication-late, lateFaults.ts) not yet published at `nowMs`: the hour endpoints answer 202. */
  isUnpublished(hour: number, nowMs: number): boolean {
    return this.has('publication-late') && isLateHour(hour) && nowMs < publishedAt(hour);
  }

  /** An hour that stays 202: nothing happens, and the hour endpoints never answer it. */
  isStuckHour(hour: number): boolean {
    return (this.has('hour-coverage') || this.has('hour-pending-long')) && STUCK_LOCAL_HOURS.includes(this.localHour(hour));
  }

  /** Whether nothing may happen in [fromMs, toMs]: it touches an outage or a stuck hour. */
  touchesQuietHour(fromMs: number, toMs: number): boolean {
    if (this.has('publication-late') && crossesLateHour(fromMs, toMs)) return true;
    if (!this.has('hour-coverage') && !this.has('hour-pending-long')) return false;
    for (let h = Math.floor(fromMs / HOUR_MS); h <= Math.floor(toMs / HOUR_MS); h++) if (this.isOutageHour(h) || this.isStuckHour(h)) return true;
    return false;
  }

  /** A busy hour that holds item faults: Berlin 08 to 20 h, not an outage or stuck hour. */
  private isFaultHour(hour: number): boolean {
    const local = this.localHour(hour);
    return local >= BUSY_LOCAL_HOURS.from && local <= BUSY_LOCAL_HOURS.to && !this.isOutageHour(hour) && !this.isStuckHour(hour);
  }

  private planOf(hour: number): HourPlan {
    let plan = this.plans.get(hour);
    if (!plan) {
      if (this.plans.size >= PLAN_CACHE) this.plans.clear();
      plan = this.choose(hour);
      this.plans.set(hour, plan);
    }
    return plan;
  }

  /** Picks one vehicle per kind in `hour`, each a different one, and describes what each fault does. */
  private choose(hour: number): HourPlan {
    const plan: HourPlan = { episodes: new Map(), beats: new Map(), entries: [] };
    const h0 = hour * HOUR_MS;
    if (this.isOutageHour(hour)) plan.entries.push({ rule: 'hour-coverage', device_id: null, trip_id: null, time: iso(h0), detail: 'an outage: nothing is reported in this hour, and /trips, /events/historical and /telemetry answer 200 with an empty list between busy hours' });
    if (this.isStuckHour(hour)) plan.entries.push({ rule: 'hour-coverage', device_id: null, trip_id: null, time: iso(h0), detail: 'an hour that stays 202: /trips, /events/historical and /telemetry answer 202 (not processed yet) for it, always' });
    const size = this.world.size;
    if (!size || !this.isFaultHour(hour)) return plan;
    const used = new Set<number>();
    const scan = (salt: number, accept: (v: number) => boolean) => {
      const first = hashOf(this.world.seed, 0xfa17, salt, hour) % size;
      for (let i = 0; i < Math.min(size, SCAN_LIMIT); i++) {
        const v = (first + i) % size;
        if (!used.has(v) && accept(v)) {
          used.add(v);
          return;
        }
      }
    };
    EPISODE_KINDS.forEach(([kind, rule], k) => {
      if (!this.selects(kind, rule)) return;
      scan(k, (v) => {
        const episode = this.world.episode(v, hour);
        if (!episode || episode.forced || episode.hour !== hour) return false;
        const found = describeEpisodeFault(this.world, kind, rule, episode, this.world.baseItemsOf(episode));
        if (!found) return false;
        plan.episodes.set(v, { kind, rule, vehicle: v, hour, target: found.target });
        plan.entries.push(found.entry, ...(found.also ? [found.also] : []), ...this.alsoEntries(kind, found.entry));
        return true;
      });
    });
    [...BEAT_KINDS, ...RANGE_BEAT_KINDS].forEach(([kind, rule], k) => {
      if (!this.selects(kind, rule)) return;
      scan(100 + k, (v) => {
        const beat = this.world.baseHeartbeat(v, hour);
        if (!beat || (kind === 'drift' && !parkedInHour(this.world, v, hour, beat.timestamp))) return false;
        if (((kind === 'battery-unknown' || kind === 'battery-text') && beat.battery_percent === undefined) || (kind === 'microseconds' && !parkedLong(this.world, v, hour, beat.timestamp))) return false;
        plan.beats.set(v, { kind, rule, vehicle: v, hour });
        const detail = isRangeBeatKind(kind) ? describeRangeBeat(kind, beat, this.world.seed) : kind === 'seconds'
          ? `a telemetry timestamp in seconds: ${beat.timestamp / 1000} instead of ${beat.timestamp} (schema finding: below the timestamp minimum)`
          : kind === 'drift'
            ? `a parked vehicle's telemetry point ${DRIFT_METRES} m from where its last event (in the same hour) left it, with no trip`
            : `a telemetry location with lat and lng swapped: ${beat.location.lng}, ${beat.location.lat}`;
        const entry: DataFaultEntry = { rule, device_id: beat.device_id, trip_id: null, time: iso(beat.timestamp), detail };
        plan.entries.push(entry, ...this.alsoEntries(kind, entry));
        return true;
      });
    });
    return plan;
  }
  /** The items of `plan` with its fault, if it has one; `items` (shared, cached) is never changed. */
  applyToEpisode(plan: EpisodePlan, items: EpisodeItems): EpisodeItems {
    if (this.has('publication-late') && isLateHour(plan.hour)) return stampLate(plan.hour, items);
    if (!this.isFaultHour(plan.hour) || plan.forced) return items;
    const choice = this.planOf(plan.hour).episodes.get(plan.vehicle);
    return choice ? applyEpisodeFault(choice, this.world.seed, plan, items) : items;
  }

  /** The idle telemetry point with its fault, if it has one. `afterRange`: the timestamp may change now (the range was read). */
  applyToHeartbeat(vehicle: number, hour: number, beat: MdsTelemetryItem, afterRange: boolean): MdsTelemetryItem {
    if (!this.isFaultHour(hour)) return beat;
    const choice = this.planOf(hour).beats.get(vehicle);
    if (choice && isRangeBeatKind(choice.kind)) return (choice.kind === 'microseconds') === afterRange ? applyRangeBeat(choice.kind, beat, this.world.seed, afterRange) : beat;
    if (choice?.kind === 'swapped' && !afterRange) return { ...beat, location: { ...beat.location, lat: beat.location.lng, lng: beat.location.lat } };
    if (choice?.kind === 'seconds' && afterRange) return { ...beat, timestamp: beat.timestamp / 1000 };
    if (choice?.kind === 'drift' && !afterRange) return { ...beat, location: { ...beat.location, ...offsetBy(beat.location, DRIFT_METRES, 0) } };
    return beat;
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
      this.snapshotVehicles = { unregistered: pick('registry', 3, 'registry-status-device'), twice: pick('registry', 4), sharedId: pick('registry-vehicle-id', 5, 'duplicate-ids'), foreign: pick('status-own-items', 6) };
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
      const pick = (salt: number, score: (last: MdsEventItem, v: number) => number | undefined, rule: DataFaultRule = 'status-vs-events') => {
        const scored: { v: number; time: number }[] = [];
        if (this.has(rule) && size >= 16) {
          for (let i = 0; i < STATUS_CANDIDATES; i++) {
            const v = hashOf(this.world.seed, 0x5a9, salt, i) % size;
            if (taken.has(v) || scored.some((c) => c.v === v)) continue;
            const time = score(this.world.lastEvent(v, at), v);
            if (time !== undefined) scored.push({ v, time });
          }
        }
        const out = scored.sort((a, b) => b.time - a.time || a.v - b.v).slice(0, 2).map((c) => c.v);
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
    return this.statusFaultVehicles(nowMs).renamed.includes(vehicle) ? statusEventId(this.world.seed, vehicle, last) : last;
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
    return { count: listed + twice.length, indexAt: (p) => (p < listed ? skipping(p, unregistered) : twice[p - listed]) };
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
   * The faults that a harvest of the hours [fromHour, toHour] with a snapshot taken at `nowMs` can show: the item and
   * hour faults of those hours that have happened by `nowMs`, and the snapshot's faults as they meet that window. A
   * status fault is listed where `check`'s status-vs-events sees it: a stale status when the event it shows is inside
   * the window and the device's last event inside the window says otherwise, at that event's time; a vehicle absent
   * from the status list when its last event inside the window leaves it in the public right-of-way, at that event's
   * time. A vehicle missing from /vehicles is listed when it has an item in the window; one listed twice always.
   */
  list(fromHour: number, toHour: number, nowMs: number): DataFaultEntry[] {
    const out: DataFaultEntry[] = [];
    for (let h = fromHour; h <= toHour; h++) {
      for (const entry of this.planOf(h).entries) if (entry.time !== null && Date.parse(entry.time) <= nowMs) out.push(entry);
      if (this.isStuckHour(h) && (h + 1) * HOUR_MS <= nowMs) out.push(pendingHourEntry(h, nowMs));
      if (this.has('publication-late') && isLateHour(h)) out.push(...lateHourEntries(h, nowMs, this.world.hourItems(h)));
      // A battery written as text in the vehicle's last point: /vehicles/status carries it as last_telemetry, and the status is set aside too.
      for (const [v, beat] of this.planOf(h).beats) {
        const base = beat.kind === 'battery-text' ? this.world.baseHeartbeat(v, h) : undefined;
        if (base && base.timestamp <= nowMs && this.world.lastTelemetry(v, nowMs)?.telemetry_id === base.telemetry_id) out.push({ rule: 'untyped-items', device_id: base.device_id, trip_id: null, time: null, detail: `/vehicles/status gives its last point, with the battery_percent "${base.battery_percent ?? ''}%", as last_telemetry: the status is set aside, untyped, too` });
      }
    }
    out.sort((a, b) => (a.time ?? '').localeCompare(b.time ?? '') || a.rule.localeCompare(b.rule));
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
    const { unregistered, twice, sharedId } = this.snapshot();
    const { stale, absent, renamed } = this.statusFaultVehicles(nowMs);
    for (const v of stale) {
      const last = this.world.lastEvent(v, nowMs);
      const shown = this.world.lastEvent(v, last.timestamp - 1);
      const seen = lastInWindow(v);
      if (shown.timestamp < start || shown.timestamp >= end || !seen || seen.vehicle_state === shown.vehicle_state) continue;
      out.push({ rule: 'status-vs-events', device_id: seen.device_id, trip_id: null, time: iso(seen.timestamp), detail: `/vehicles/status shows the event before the last as last_event (${shown.vehicle_state}), but the device's last event (${seen.event_types.join(', ')}) leaves it ${seen.vehicle_state}` });
    }
    for (const v of absent) {
      const seen = lastInWindow(v);
      if (!seen || !PROW.has(seen.vehicle_state)) continue;
      out.push({ rule: 'status-vs-events', device_id: seen.device_id, trip_id: null, time: iso(seen.timestamp), detail: `absent from /vehicles/status, while its last event leaves it ${seen.vehicle_state}, in the public right-of-way` });
    }
    for (const v of renamed) {
      const last = this.world.lastEvent(v, nowMs);
      if (last.timestamp < start || last.timestamp >= end) continue;
      out.push({ rule: 'status-last-event', device_id: last.device_id, trip_id: last.trip_ids?.[0] ?? null, time: iso(last.timestamp), detail: `/vehicles/status gives its last_event (${last.event_types.join(', ')}) the event_id ${statusEventId(this.world.seed, v, last).event_id}, where /events/historical serves it as ${last.event_id}` });
    }
    const hasItem = (v: number) => lastInWindow(v) !== undefined || Array.from({ length: Math.max(0, toHour - fromHour + 1) }, (_, i) => fromHour + i).some((h) => (h + 1) * HOUR_MS <= end && this.world.baseHeartbeat(v, h) !== undefined);
    for (const v of unregistered) if (hasItem(v)) out.push({ rule: 'registry', device_id: this.world.deviceIdAt(v), trip_id: null, time: null, detail: 'missing from /vehicles, while its trips, events and telemetry are served' });
    for (const v of twice) out.push({ rule: 'registry', device_id: this.world.deviceIdAt(v), trip_id: null, time: null, detail: 'listed twice in /vehicles' });
    // The vehicles missing from /vehicles are still in /vehicles/status: the rule sees them whatever the window, at their status's last_event.
    for (const v of unregistered) {
      const last = this.world.lastEvent(v, nowMs);
      out.push({ rule: 'registry-status-device', device_id: last.device_id, trip_id: last.trip_ids?.[0] ?? null, time: iso(last.timestamp), detail: `listed by /vehicles/status (${last.vehicle_state}), but missing from /vehicles` });
    }
    out.push(...(this.stale?.list(start, end, nowMs) ?? []));
    const [joined, other] = this.snapshot().foreign;
    const point = other === undefined ? undefined : this.world.lastTelemetry(other, nowMs);
    if (point) out.push({ rule: 'status-own-items', device_id: this.world.deviceIdAt(joined), trip_id: point.trip_ids?.[0] ?? null, time: iso(point.timestamp), detail: `/vehicles/status gives it the last_telemetry of device ${point.device_id} (a status feed joined by position, not by device_id)` });
    for (const [rule, why] of Object.entries(NOT_INJECTED) as [DataFaultRule, string][]) if (this.has(rule)) out.push({ rule, device_id: null, trip_id: null, time: null, detail: 'no fault of this rule is injected', unseen: why });
    if (sharedId.length === 2) out.push(...sharedVehicleIdEntries([this.world.deviceIdAt(sharedId[0]), this.world.deviceIdAt(sharedId[1])], this.world.vehicleIdAt(sharedId[0])));
    return out;
  }
}
