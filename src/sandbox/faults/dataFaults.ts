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
 * Rules and entries: faultRules.ts; item faults: episodeFaults.ts; snapshot faults: snapshotVehicles.ts. A fault
 * changes only its own episode's items (found by its rule and no other); the selection reads the world without faults,
 * so nothing here depends on itself.
 */
import type { MdsTelemetryItem } from '../../core/mds';
import type { EpisodeItems } from '../world/episodeDetails';
import type { EpisodePlan } from '../world/episodePlans';
import { HOUR_MS } from '../world/episodePlans';
import { cityHourOf, offsetBy } from '../world/worldGeography';
import { hashOf } from '../world/worldRandom';
import type { BeatFaultKind, EpisodeFaultKind } from './episodeFaults';
import { BEAT_KINDS, EPISODE_KINDS, describeEpisodeFault, iso } from './episodeFaults';
import { applyEpisodeFault } from './episodeFaultItems';
import type { DataFaultEntry, DataFaultRule, FaultWorld } from './faultRules';
import type { RangeBeatKind } from './rangeFaults';
import {
  ALSO_RULES,
  RANGE_BEAT_KINDS,
  applyRangeBeat,
  describeRangeBeat,
  isRangeBeatKind,
  parkedInHour,
  parkedLong,
} from './rangeFaults';
import { pendingHourEntry } from './snapshotFaults';
import { SnapshotVehicles } from './snapshotVehicles';
import { StaleVehicles } from './staleFaults';
import type { FiledLateKind } from './filedLateFaults';
import { FILED_LATE_KINDS, canFileLate, describeFiledLate, recordedAt } from './filedLateFaults';
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
  kind: BeatFaultKind | RangeBeatKind | FiledLateKind;
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
  /** The status and registry faults of `/vehicles` and `/vehicles/status` (snapshotVehicles.ts). */
  readonly snapshot: SnapshotVehicles;

  private readonly stale?: StaleVehicles;

  constructor(
    rules: readonly DataFaultRule[],
    private readonly world: FaultWorld,
  ) {
    this.rules = new Set(rules);
    this.snapshot = new SnapshotVehicles(this.rules, world);
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
    return (Object.hasOwn(ALSO_RULES, kind) ? ALSO_RULES[kind] : []).map((rule) => ({
      ...entry,
      rule,
      detail: `${entry.detail} (the ${entry.rule} fault, seen by ${rule} too)`,
    }));
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
    return (
      (this.has('hour-coverage') || this.has('hour-pending-long')) && STUCK_LOCAL_HOURS.includes(this.localHour(hour))
    );
  }

  /** Whether nothing may happen in [fromMs, toMs]: it touches an outage or a stuck hour. */
  touchesQuietHour(fromMs: number, toMs: number): boolean {
    if (this.has('publication-late') && crossesLateHour(fromMs, toMs)) return true;
    if (!this.has('hour-coverage') && !this.has('hour-pending-long')) return false;
    for (let h = Math.floor(fromMs / HOUR_MS); h <= Math.floor(toMs / HOUR_MS); h++)
      if (this.isOutageHour(h) || this.isStuckHour(h)) return true;
    return false;
  }

  /** A busy hour that holds item faults: Berlin 08 to 20 h, not an outage or stuck hour. */
  private isFaultHour(hour: number): boolean {
    const local = this.localHour(hour);
    return (
      local >= BUSY_LOCAL_HOURS.from &&
      local <= BUSY_LOCAL_HOURS.to &&
      !this.isOutageHour(hour) &&
      !this.isStuckHour(hour)
    );
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
    if (this.isOutageHour(hour))
      plan.entries.push({
        rule: 'hour-coverage',
        device_id: null,
        trip_id: null,
        time: iso(h0),
        detail:
          'an outage: nothing is reported in this hour, and /trips, /events/historical and /telemetry answer 200 with an empty list between busy hours',
      });
    if (this.isStuckHour(hour))
      plan.entries.push({
        rule: 'hour-coverage',
        device_id: null,
        trip_id: null,
        time: iso(h0),
        detail:
          'an hour that stays 202: /trips, /events/historical and /telemetry answer 202 (not processed yet) for it, always',
      });
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
        if (
          ((kind === 'battery-unknown' || kind === 'battery-text') && beat.battery_percent === undefined) ||
          (kind === 'microseconds' && !parkedLong(this.world, v, hour, beat.timestamp))
        )
          return false;
        plan.beats.set(v, { kind, rule, vehicle: v, hour });
        const detail = isRangeBeatKind(kind)
          ? describeRangeBeat(kind, beat, this.world.seed)
          : kind === 'seconds'
            ? `a telemetry timestamp in seconds: ${beat.timestamp / 1000} instead of ${beat.timestamp} (schema finding: below the timestamp minimum)`
            : kind === 'drift'
              ? `a parked vehicle's telemetry point ${DRIFT_METRES} m from where its last event (in the same hour) left it, with no trip`
              : `a telemetry location with lat and lng swapped: ${beat.location.lng}, ${beat.location.lat}`;
        const entry: DataFaultEntry = {
          rule,
          device_id: beat.device_id,
          trip_id: null,
          time: iso(beat.timestamp),
          detail,
        };
        plan.entries.push(entry, ...this.alsoEntries(kind, entry));
        return true;
      });
    });
    // After the other kinds, so that their choices (salted by their index) stay as they were.
    FILED_LATE_KINDS.forEach(([kind, rule], k) => {
      if (!this.selects(kind, rule)) return;
      scan(200 + k, (v) => {
        const beat = this.world.baseHeartbeat(v, hour);
        if (!beat || !canFileLate(this.world, v, hour, beat)) return false;
        plan.beats.set(v, { kind, rule, vehicle: v, hour });
        const entry: DataFaultEntry = {
          rule,
          device_id: beat.device_id,
          trip_id: null,
          time: iso(recordedAt(beat)),
          detail: describeFiledLate(beat, hour),
        };
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
    if (choice && isRangeBeatKind(choice.kind))
      return (choice.kind === 'microseconds') === afterRange
        ? applyRangeBeat(choice.kind, beat, this.world.seed, afterRange)
        : beat;
    if (choice?.kind === 'swapped' && !afterRange)
      return { ...beat, location: { ...beat.location, lat: beat.location.lng, lng: beat.location.lat } };
    if (choice?.kind === 'seconds' && afterRange) return { ...beat, timestamp: beat.timestamp / 1000 };
    if (choice?.kind === 'filed-late' && afterRange) return { ...beat, timestamp: recordedAt(beat) };
    if (choice?.kind === 'drift' && !afterRange)
      return { ...beat, location: { ...beat.location, ...offsetBy(beat.location, DRIFT_METRES, 0) } };
    return beat;
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
      for (const entry of this.planOf(h).entries)
        if (entry.time !== null && Date.parse(entry.time) <= nowMs) out.push(entry);
      if (this.isStuckHour(h) && (h + 1) * HOUR_MS <= nowMs) out.push(pendingHourEntry(h, nowMs));
      if (this.has('publication-late') && isLateHour(h))
        out.push(...lateHourEntries(h, nowMs, this.world.hourItems(h)));
      // A battery written as text in the vehicle's last point: /vehicles/status carries it as last_telemetry, and the status is set aside too.
      for (const [v, beat] of this.planOf(h).beats) {
        const base = beat.kind === 'battery-text' ? this.world.baseHeartbeat(v, h) : undefined;
        if (base && base.timestamp <= nowMs && this.world.lastTelemetry(v, nowMs)?.telemetry_id === base.telemetry_id)
          out.push({
            rule: 'untyped-items',
            device_id: base.device_id,
            trip_id: null,
            time: null,
            detail: `/vehicles/status gives its last point, with the battery_percent "${base.battery_percent ?? ''}%", as last_telemetry: the status is set aside, untyped, too`,
          });
      }
    }
    out.sort((a, b) => (a.time ?? '').localeCompare(b.time ?? '') || a.rule.localeCompare(b.rule));
    const start = fromHour * HOUR_MS;
    const end = Math.min((toHour + 1) * HOUR_MS, nowMs + 1);
    out.push(...this.snapshot.statusEntries(fromHour, toHour, nowMs));
    out.push(...(this.stale?.list(start, end, nowMs) ?? []));
    out.push(...this.snapshot.foreignEntries(nowMs));
    for (const [rule, why] of Object.entries(NOT_INJECTED) as [DataFaultRule, string][])
      if (this.has(rule))
        out.push({
          rule,
          device_id: null,
          trip_id: null,
          time: null,
          detail: 'no fault of this rule is injected',
          unseen: why,
        });
    out.push(...this.snapshot.sharedIdEntries());
    return out;
  }
}
