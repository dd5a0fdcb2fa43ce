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
 * A fault changes only its own episode's items, so that it is found by its rule and by no other. The selection reads the
 * world without faults, so nothing here depends on itself.
 */
import type { MdsEventItem, MdsLocation, MdsTelemetryItem, MdsTrip } from '../core/mds';
import { MobilityError } from '../core/base';
import type { EpisodeItems } from './episodeDetails';
import type { EpisodePlan } from './episodePlans';
import { HOUR_MS, MINUTE_MS } from './episodePlans';
import { cityHourOf, offsetBy } from './worldGeography';
import { hashOf, worldUuid } from './worldRandom';

/** The rules of `mobility-api check`, in its order; `--data-faults` takes these ids. */
export const DATA_FAULT_RULES = ['event-sequence', 'trip-events', 'duplicate-events', 'telemetry-gaps', 'teleport', 'units', 'phantom-trips', 'status-vs-events', 'hour-coverage', 'registry'] as const;

export type DataFaultRule = (typeof DATA_FAULT_RULES)[number];

/** One injected fault, as `GET /_sandbox/data-faults` lists it. */
export interface DataFaultEntry {
  rule: DataFaultRule;
  device_id: string | null;
  trip_id: string | null;
  /** ISO 8601 (UTC): when it happened (the real time, also for a timestamp sent in seconds); null for registry faults. */
  time: string | null;
  detail: string;
}

export function isDataFaultRule(value: string): value is DataFaultRule {
  return (DATA_FAULT_RULES as readonly string[]).includes(value);
}

/**
 * Reads `all` or a comma-separated list of rule ids. Throws `error` (a code and a message) naming the id that is not
 * a rule.
 */
export function parseDataFaults(text: string, error: (message: string) => Error, name = '--data-faults'): DataFaultRule[] {
  const parts = text.split(',').map((p) => p.trim()).filter((p) => p !== '');
  if (parts.length === 1 && parts[0] === 'all') return [...DATA_FAULT_RULES];
  if (!parts.length) throw error(`${name} is empty; give all, or rule ids separated by commas: ${DATA_FAULT_RULES.join(', ')}.`);
  for (const part of parts) {
    if (!isDataFaultRule(part)) throw error(`${name}: ${JSON.stringify(part)} is not a rule of mobility-api check; use all, or some of ${DATA_FAULT_RULES.join(', ')}.`);
  }
  return [...new Set(parts as DataFaultRule[])];
}

/** Checks the `dataFaults` option of startSandbox. */
export function checkDataFaultsOption(given: unknown): DataFaultRule[] {
  if (given === undefined) return [];
  if (given === 'all') return [...DATA_FAULT_RULES];
  const invalid = (message: string) => new MobilityError('SANDBOX_OPTIONS_INVALID', `The sandbox option ${message}`);
  if (!Array.isArray(given) || given.some((g) => typeof g !== 'string')) throw invalid(`dataFaults is ${JSON.stringify(given)}; give 'all' or a list of rule ids (${DATA_FAULT_RULES.join(', ')}).`);
  return parseDataFaults((given as string[]).join(','), invalid, 'dataFaults');
}

/** What the faults read of the world, without faults. */
export interface FaultWorld {
  readonly seed: number;
  readonly size: number;
  deviceIdAt(vehicle: number): string;
  /** The episode drawn in `hour` that really happens (quiet hours already applied). */
  episode(vehicle: number, hour: number): EpisodePlan | undefined;
  /** The items of an episode, without faults. */
  baseItemsOf(plan: EpisodePlan): EpisodeItems;
  /** The idle telemetry point of a vehicle in an hour, without faults. */
  baseHeartbeat(vehicle: number, hour: number): MdsTelemetryItem | undefined;
  /** The latest event at or before `nowMs`, with the item faults (as the events endpoints serve it). */
  lastEvent(vehicle: number, nowMs: number): MdsEventItem;
}

type EpisodeFaultKind = 'early-start' | 'late-end' | 'never-ended' | 'duplicate' | 'one-point' | 'gap' | 'jump' | 'battery' | 'speed' | 'negative-cost' | 'phantom' | 'bad-transition';
type BeatFaultKind = 'seconds' | 'swapped';

const EPISODE_KINDS: readonly (readonly [EpisodeFaultKind, DataFaultRule])[] = [
  ['jump', 'teleport'],
  ['phantom', 'phantom-trips'],
  ['early-start', 'trip-events'],
  ['late-end', 'trip-events'],
  ['never-ended', 'trip-events'],
  ['duplicate', 'duplicate-events'],
  ['one-point', 'telemetry-gaps'],
  ['gap', 'telemetry-gaps'],
  ['battery', 'units'],
  ['speed', 'units'],
  ['negative-cost', 'units'],
  // Last: it fits most episodes with a trip, so it takes a vehicle the others left.
  ['bad-transition', 'event-sequence'],
];
const BEAT_KINDS: readonly (readonly [BeatFaultKind, DataFaultRule])[] = [
  ['seconds', 'units'],
  ['swapped', 'units'],
];

/** How far a trip event is moved from its trip's time (check allows 60 s; episodes keep 120 s apart). */
const EVENT_SHIFT_MS = 90_000;
/** How far the jump moves a vehicle with no trip (check's teleport threshold is 500 m). */
const JUMP_METRES = 800;
/** A speed no micromobility vehicle reaches, in m/s (check's threshold is 45). */
const IMPLAUSIBLE_SPEED = 60;
/** Telemetry of a gap fault: the points after the first minute and before 7.5 minutes are dropped (a gap of 390 s). */
const GAP_FROM_MS = 60_000;
const GAP_TO_MS = 450_000;
/** Serials of the items a fault adds, far above an episode's own (worldUuid takes serials below 4096). */
const FAULT_SERIAL = 4000;
/** How many vehicles the selection of one kind looks at before it gives up for that hour. */
const SCAN_LIMIT = 5000;
const PLAN_CACHE = 2000;

/** Berlin hours of the outages (200, empty) and of the hours that stay 202: every four hours, so that any six busy hours hold one of each inside. */
const OUTAGE_LOCAL_HOURS: readonly number[] = [8, 12, 16, 20];
const STUCK_LOCAL_HOURS: readonly number[] = [10, 14, 18];
const BUSY_LOCAL_HOURS = { from: 8, to: 20 };

interface EpisodeChoice {
  kind: EpisodeFaultKind;
  rule: DataFaultRule;
  vehicle: number;
  hour: number;
  /** The trip or event the fault is about, by id. */
  target: string;
}

interface BeatChoice {
  kind: BeatFaultKind;
  rule: DataFaultRule;
  vehicle: number;
  hour: number;
}

interface HourPlan {
  episodes: Map<number, EpisodeChoice>;
  beats: Map<number, BeatChoice>;
  entries: DataFaultEntry[];
}

const iso = (ms: number) => new Date(ms).toISOString();
const copyEvent = (e: MdsEventItem): MdsEventItem => ({ ...e, location: { ...e.location }, event_types: [...e.event_types], ...(e.trip_ids ? { trip_ids: [...e.trip_ids] } : {}) });

/** The data faults of one world. */
export class DataFaults {
  readonly rules: ReadonlySet<DataFaultRule>;
  private readonly plans = new Map<number, HourPlan>();
  private snapshotVehicles?: { unregistered: number[]; twice: number[] };
  private statusVehicles?: { hour: number; stale: number[]; absent: number[] };

  constructor(rules: readonly DataFaultRule[], private readonly world: FaultWorld) {
    this.rules = new Set(rules);
  }

  private has(rule: DataFaultRule): boolean {
    return this.rules.has(rule);
  }

  private localHour(hour: number): number {
    return cityHourOf(hour * HOUR_MS);
  }

  /** An outage hour: nothing happens, the hour endpoints answer 200 with empty lists. */
  isOutageHour(hour: number): boolean {
    return this.has('hour-coverage') && OUTAGE_LOCAL_HOURS.includes(this.localHour(hour));
  }

  /** An hour that stays 202: nothing happens, and the hour endpoints never answer it. */
  isStuckHour(hour: number): boolean {
    return this.has('hour-coverage') && STUCK_LOCAL_HOURS.includes(this.localHour(hour));
  }

  /** Whether nothing may happen in [fromMs, toMs]: it touches an outage or a stuck hour. */
  touchesQuietHour(fromMs: number, toMs: number): boolean {
    if (!this.has('hour-coverage')) return false;
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
      if (!this.has(rule)) return;
      scan(k, (v) => {
        const episode = this.world.episode(v, hour);
        if (!episode || episode.forced || episode.hour !== hour) return false;
        const found = this.describe(kind, rule, episode, this.world.baseItemsOf(episode));
        if (!found) return false;
        plan.episodes.set(v, { kind, rule, vehicle: v, hour, target: found.target });
        plan.entries.push(found.entry, ...(found.also ? [found.also] : []));
        return true;
      });
    });
    BEAT_KINDS.forEach(([kind, rule], k) => {
      if (!this.has(rule)) return;
      scan(100 + k, (v) => {
        const beat = this.world.baseHeartbeat(v, hour);
        if (!beat) return false;
        plan.beats.set(v, { kind, rule, vehicle: v, hour });
        const detail = kind === 'seconds'
          ? `a telemetry timestamp in seconds: ${beat.timestamp / 1000} instead of ${beat.timestamp} (schema finding: below the timestamp minimum)`
          : `a telemetry location with lat and lng swapped: ${beat.location.lng}, ${beat.location.lat}`;
        plan.entries.push({ rule, device_id: beat.device_id, trip_id: null, time: iso(beat.timestamp), detail });
        return true;
      });
    });
    return plan;
  }

  /** Whether `kind` fits this episode's items, and the listing entry of the fault it would get. */
  private describe(kind: EpisodeFaultKind, rule: DataFaultRule, episode: EpisodePlan, items: EpisodeItems): { target: string; entry: DataFaultEntry; also?: DataFaultEntry } | undefined {
    const h0 = episode.hour * HOUR_MS;
    const h1 = h0 + HOUR_MS;
    const { events, trips } = items;
    const device = this.world.deviceIdAt(episode.vehicle);
    const entry = (time: number, detail: string, trip: string | null = null): DataFaultEntry => ({ rule, device_id: device, trip_id: trip, time: iso(time), detail });
    // Trips that begin and end inside the hour, with room for a shift on either side.
    const inHour = trips.filter((t) => t.start_time >= h0 + 2 * MINUTE_MS && t.end_time + 2 * MINUTE_MS < h1);
    const startIndex = (t: MdsTrip) => events.findIndex((e) => e.event_types.includes('trip_start') && e.trip_ids?.[0] === t.trip_id);
    const endIndex = (t: MdsTrip) => events.findIndex((e) => e.event_types.includes('trip_end') && e.trip_ids?.[0] === t.trip_id);
    switch (kind) {
      case 'early-start': {
        const t = inHour.find((trip) => events[startIndex(trip) - 1]?.event_types[0] !== 'reservation_start');
        return t && { target: t.trip_id, entry: entry(t.start_time, `the trip_start event is ${EVENT_SHIFT_MS / 1000} s before the trip's start_time`, t.trip_id) };
      }
      case 'late-end': {
        const t = inHour[0];
        return t && { target: t.trip_id, entry: entry(t.end_time, `the trip_end event is ${EVENT_SHIFT_MS / 1000} s after the trip's end_time`, t.trip_id) };
      }
      case 'never-ended': {
        // A trip followed by another event of the device in the episode: that event, from on_trip, also breaks the state
        // machine, and is listed as an event-sequence fault of its own (one, as the machine goes on from its state).
        const t = inHour.find((trip) => events[endIndex(trip) + 1] !== undefined);
        const next = t && events[endIndex(t) + 1];
        return t && next && {
          target: t.trip_id,
          entry: entry(t.start_time, 'a trip_start never followed by its trip_end (the trip is missing from /trips too; its next event also breaks the state machine)', t.trip_id),
          also: { rule: 'event-sequence', device_id: device, trip_id: next.trip_ids?.[0] ?? null, time: iso(next.timestamp), detail: `the ${next.event_types.join(', ')} after a trip_start never ended: on_trip -> ${next.vehicle_state} (a consequence of the trip-events fault)` },
        };
      }
      case 'one-point': {
        const t = inHour[0];
        return t && { target: t.trip_id, entry: entry(t.start_time, 'a trip with one telemetry point, its start', t.trip_id) };
      }
      case 'gap': {
        const t = inHour[0];
        return t && { target: t.trip_id, entry: entry(t.start_time + GAP_FROM_MS, `no telemetry for ${(GAP_TO_MS - GAP_FROM_MS) / 1000} s inside the trip`, t.trip_id) };
      }
      case 'negative-cost': {
        const t = inHour.find((trip) => (trip.actual_cost ?? 0) > 0);
        return t && { target: t.trip_id, entry: entry(t.start_time, `a negative actual_cost: ${-(t.actual_cost ?? 0)} (schema finding: below the minimum 0)`, t.trip_id) };
      }
      case 'speed': {
        const t = inHour[0];
        const point = t && items.telemetry.find((p) => p.trip_ids?.[0] === t.trip_id && p.timestamp > t.start_time && p.timestamp < t.end_time);
        return t && point && { target: point.telemetry_id, entry: entry(point.timestamp, `a telemetry speed of ${IMPLAUSIBLE_SPEED} m/s`, t.trip_id) };
      }
      case 'battery': {
        const e = inHour.map((t) => events[startIndex(t)]).find((ev) => ev?.battery_percent !== undefined && ev.battery_percent > 10);
        return e && { target: e.event_id, entry: entry(e.timestamp, `battery_percent ${(e.battery_percent ?? 0) * 10}: per mille, not percent (schema finding: above the maximum 100)`) };
      }
      case 'duplicate': {
        const e = events.find((ev) => ev.timestamp >= h0 && ev.timestamp < h1 - MINUTE_MS);
        return e && { target: e.event_id, entry: entry(e.timestamp, `the event ${e.event_types.join(', ')} sent twice, under two event_ids`) };
      }
      case 'jump': {
        // A trip_start moved away from the event before it (a reservation_start, or the ride before: in the same episode).
        for (const t of inHour) {
          const start = startIndex(t);
          const before = events[start - 1];
          if (start >= 1 && before && before.timestamp >= h0) return { target: t.trip_id, entry: entry(events[start].timestamp, `the trip_start is ${JUMP_METRES} m from the vehicle's last known location, with no trip between`) };
        }
        return undefined;
      }
      case 'phantom': {
        for (const t of trips) {
          const end = endIndex(t);
          const next = events[end + 1];
          const endMs = t.end_time;
          // After the episode's last trip too: the next episode starts at least two minutes after this one ends.
          if (end >= 0 && (!next || next.timestamp >= endMs + 150_000) && endMs >= h0 && endMs + 100_000 < h1) {
            return { target: t.trip_id, entry: entry(endMs + 60_000, 'a phantom trip of 25 s and 15 m', worldUuid(this.world.seed, 'trip', episode.vehicle, episode.hour, FAULT_SERIAL)) };
          }
        }
        return undefined;
      }
      case 'bad-transition': {
        // A comms_restored added 30 s after a trip_end that leaves the vehicle available: the trip_end is in the same hour,
        // so any harvest holding the hour holds the state it leaves; the vehicle's next event comes later, from available.
        for (const t of inHour) {
          const end = events[endIndex(t)];
          const next = events[endIndex(t) + 1];
          if (end?.vehicle_state === 'available' && (!next || next.timestamp > end.timestamp + 2 * BAD_TRANSITION_DELAY_MS)) {
            return { target: t.trip_id, entry: entry(end.timestamp + BAD_TRANSITION_DELAY_MS, 'comms_restored while available, 30 s after a trip_end (the state machine allows it only from non_contactable)') };
          }
        }
        return undefined;
      }
    }
  }

  /** The items of `plan` with its fault, if it has one; `items` (shared, cached) is never changed. */
  applyToEpisode(plan: EpisodePlan, items: EpisodeItems): EpisodeItems {
    if (!this.isFaultHour(plan.hour) || plan.forced) return items;
    const choice = this.planOf(plan.hour).episodes.get(plan.vehicle);
    if (!choice) return items;
    const out: EpisodeItems = { events: [...items.events], telemetry: [...items.telemetry], trips: [...items.trips], endBattery: items.endBattery };
    const { seed } = this.world;
    const tripIndex = out.trips.findIndex((t) => t.trip_id === choice.target);
    const trip = out.trips[tripIndex];
    const eventIndex = (types: string, tripId: string) => out.events.findIndex((e) => e.event_types.includes(types) && e.trip_ids?.[0] === tripId);
    const moveEvent = (i: number, change: (e: MdsEventItem) => void) => {
      const e = copyEvent(out.events[i]);
      change(e);
      out.events[i] = e;
    };
    switch (choice.kind) {
      case 'early-start':
        moveEvent(eventIndex('trip_start', choice.target), (e) => (e.timestamp -= EVENT_SHIFT_MS));
        break;
      case 'late-end':
        moveEvent(eventIndex('trip_end', choice.target), (e) => (e.timestamp += EVENT_SHIFT_MS));
        break;
      case 'never-ended':
        out.events.splice(eventIndex('trip_end', choice.target), 1);
        out.trips.splice(tripIndex, 1);
        break;
      case 'one-point': {
        const first = out.telemetry.findIndex((p) => p.trip_ids?.[0] === choice.target);
        out.telemetry = out.telemetry.filter((p, i) => p.trip_ids?.[0] !== choice.target || i === first);
        break;
      }
      case 'gap':
        out.telemetry = out.telemetry.filter((p) => p.trip_ids?.[0] !== choice.target || p.timestamp - trip.start_time <= GAP_FROM_MS || p.timestamp - trip.start_time >= GAP_TO_MS);
        break;
      case 'negative-cost':
        out.trips[tripIndex] = { ...trip, actual_cost: -(trip.actual_cost ?? 0) };
        break;
      case 'speed': {
        const i = out.telemetry.findIndex((p) => p.telemetry_id === choice.target);
        out.telemetry[i] = { ...out.telemetry[i], location: { ...out.telemetry[i].location, speed: IMPLAUSIBLE_SPEED } };
        break;
      }
      case 'battery':
        moveEvent(out.events.findIndex((e) => e.event_id === choice.target), (e) => (e.battery_percent = (e.battery_percent ?? 0) * 10));
        break;
      case 'duplicate': {
        const i = out.events.findIndex((e) => e.event_id === choice.target);
        out.events.splice(i + 1, 0, { ...copyEvent(out.events[i]), event_id: worldUuid(seed, 'event', plan.vehicle, plan.hour, FAULT_SERIAL) });
        break;
      }
      case 'jump': {
        moveEvent(eventIndex('trip_start', choice.target), (e) => (e.location = offsetBy(e.location, JUMP_METRES, 0)));
        break;
      }
      case 'phantom':
        addPhantomTrip(out, seed, plan, trip, eventIndex('trip_end', choice.target));
        break;
      case 'bad-transition': {
        const end = eventIndex('trip_end', choice.target);
        const restored: MdsEventItem = { ...copyEvent(out.events[end]), event_id: worldUuid(seed, 'event', plan.vehicle, plan.hour, FAULT_SERIAL), event_types: ['comms_restored'], vehicle_state: 'available', timestamp: out.events[end].timestamp + BAD_TRANSITION_DELAY_MS };
        delete restored.trip_ids;
        out.events.splice(end + 1, 0, restored);
        break;
      }
    }
    return out;
  }

  /** The idle telemetry point with its fault, if it has one. `afterRange`: the timestamp may change now (the range was read). */
  applyToHeartbeat(vehicle: number, hour: number, beat: MdsTelemetryItem, afterRange: boolean): MdsTelemetryItem {
    if (!this.isFaultHour(hour)) return beat;
    const choice = this.planOf(hour).beats.get(vehicle);
    if (choice?.kind === 'swapped' && !afterRange) return { ...beat, location: { ...beat.location, lat: beat.location.lng, lng: beat.location.lat } };
    if (choice?.kind === 'seconds' && afterRange) return { ...beat, timestamp: beat.timestamp / 1000 };
    return beat;
  }

  /** The fixed vehicles of the registry faults, each a different one. */
  private snapshot(): { unregistered: number[]; twice: number[] } {
    if (!this.snapshotVehicles) {
      const size = this.world.size;
      const taken = new Set<number>();
      const pick = (rule: DataFaultRule, salt: number) => {
        const out: number[] = [];
        if (!this.has(rule) || size < 16) return out;
        for (let i = 0; out.length < 2 && i < 64; i++) {
          const v = hashOf(this.world.seed, 0x5a9, salt, i) % size;
          if (!taken.has(v)) {
            taken.add(v);
            out.push(v);
          }
        }
        return out.sort((a, b) => a - b);
      };
      this.snapshotVehicles = { unregistered: pick('registry', 3), twice: pick('registry', 4) };
    }
    return this.snapshotVehicles;
  }

  /**
   * The vehicles of the status faults as of `nowMs`, chosen anew each hour: among a few candidates, those whose last
   * event (before the hour) is the latest, so that a harvest up to the snapshot holds the events the fault contradicts
   * (`status-vs-events` compares only statuses whose last event is in the harvested hours). A stale one's last two
   * events leave it in different states; an absent one's last event leaves it in the public right-of-way.
   */
  private statusFaultVehicles(nowMs: number): { stale: number[]; absent: number[] } {
    const hour = Math.floor(nowMs / HOUR_MS);
    if (this.statusVehicles?.hour !== hour) {
      const size = this.world.size;
      const taken = new Set<number>([...this.snapshot().unregistered, ...this.snapshot().twice]);
      const at = hour * HOUR_MS - 1;
      /** `score`: the time that must fall inside the harvest, or undefined when the vehicle does not fit. */
      const pick = (salt: number, score: (last: MdsEventItem, v: number) => number | undefined) => {
        const scored: { v: number; time: number }[] = [];
        if (this.has('status-vs-events') && size >= 16) {
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
      this.statusVehicles = { hour, stale, absent };
    }
    return this.statusVehicles;
  }

  /** Whether the status of `vehicle` at `nowMs` shows a stale last_event. */
  isStaleStatus(vehicle: number, nowMs: number): boolean {
    return this.statusFaultVehicles(nowMs).stale.includes(vehicle);
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

  /** Every fault of the hours [fromHour, toHour] that has happened by `nowMs`, and the snapshot faults as of `nowMs`. */
  list(fromHour: number, toHour: number, nowMs: number): DataFaultEntry[] {
    const out: DataFaultEntry[] = [];
    for (let h = fromHour; h <= toHour; h++) {
      for (const entry of this.planOf(h).entries) if (entry.time !== null && Date.parse(entry.time) <= nowMs) out.push(entry);
    }
    out.sort((a, b) => (a.time ?? '').localeCompare(b.time ?? '') || a.rule.localeCompare(b.rule));
    const { unregistered, twice } = this.snapshot();
    const { stale, absent } = this.statusFaultVehicles(nowMs);
    for (const v of stale) {
      const last = this.world.lastEvent(v, nowMs);
      const shown = this.world.lastEvent(v, last.timestamp - 1);
      if (shown.vehicle_state === last.vehicle_state) continue;
      out.push({ rule: 'status-vs-events', device_id: last.device_id, trip_id: null, time: iso(last.timestamp), detail: `/vehicles/status shows the event before the last as last_event (${shown.vehicle_state}), but the device's last event (${last.event_types.join(', ')}) leaves it ${last.vehicle_state}` });
    }
    for (const v of absent) {
      const last = this.world.lastEvent(v, nowMs);
      if (!PROW.has(last.vehicle_state)) continue;
      out.push({ rule: 'status-vs-events', device_id: last.device_id, trip_id: null, time: iso(last.timestamp), detail: `absent from /vehicles/status, while its last event leaves it ${last.vehicle_state}, in the public right-of-way` });
    }
    for (const v of unregistered) out.push({ rule: 'registry', device_id: this.world.deviceIdAt(v), trip_id: null, time: null, detail: 'missing from /vehicles, while its trips, events and telemetry are served' });
    for (const v of twice) out.push({ rule: 'registry', device_id: this.world.deviceIdAt(v), trip_id: null, time: null, detail: 'listed twice in /vehicles' });
    return out;
  }
}

/** How long after a trip_end the bad transition's comms_restored comes. */
const BAD_TRANSITION_DELAY_MS = 30_000;
/** The vehicle states in the public right-of-way (modes/vehicle_states.md). */
const PROW = new Set<string>(['available', 'non_operational', 'reserved', 'on_trip']);
/** How many vehicles each status fault looks at to find the most recently active ones. */
const STATUS_CANDIDATES = 48;

/** The `position`-th index of 0, 1, 2… when the sorted `skipped` indexes are left out. */
function skipping(position: number, skipped: readonly number[]): number {
  let index = position;
  for (const s of skipped) if (s <= index) index++;
  return index;
}

/** Adds a phantom trip (25 s, 15 m: an unlock test) a minute after the trip that ends at `endIndex`, with its events and two telemetry points. */
function addPhantomTrip(out: EpisodeItems, seed: number, plan: EpisodePlan, before: MdsTrip, endIndex: number): void {
  const endEvent = out.events[endIndex];
  const tripId = worldUuid(seed, 'trip', plan.vehicle, plan.hour, FAULT_SERIAL);
  const startMs = before.end_time + 60_000;
  const endMs = startMs + 25_000;
  const from: MdsLocation = { lat: endEvent.location.lat, lng: endEvent.location.lng };
  const to = offsetBy(from, 15, 0);
  const event = (serial: number, timestamp: number, state: MdsEventItem['vehicle_state'], type: string, at: MdsLocation): MdsEventItem => ({
    ...copyEvent(endEvent),
    event_id: worldUuid(seed, 'event', plan.vehicle, plan.hour, FAULT_SERIAL + serial),
    vehicle_state: state,
    event_types: [type],
    timestamp,
    location: { lat: at.lat, lng: at.lng },
    trip_ids: [tripId],
  });
  out.events.splice(endIndex + 1, 0, event(1, startMs, 'on_trip', 'trip_start', from), event(2, endMs, 'available', 'trip_end', to));
  const point = (serial: number, timestamp: number, at: MdsLocation, speed: number): MdsTelemetryItem => {
    const p: MdsTelemetryItem = {
      device_id: endEvent.device_id,
      provider_id: endEvent.provider_id,
      telemetry_id: worldUuid(seed, 'telemetry', plan.vehicle, plan.hour, FAULT_SERIAL + serial),
      timestamp,
      trip_ids: [tripId],
      journey_id: null,
      location: { lat: at.lat, lng: at.lng, heading: 0, speed, horizontal_accuracy: 5 },
      location_type: 'street',
    };
    if (endEvent.battery_percent !== undefined) p.battery_percent = endEvent.battery_percent;
    return p;
  };
  const at = out.telemetry.findIndex((p) => p.timestamp > startMs);
  out.telemetry.splice(at < 0 ? out.telemetry.length : at, 0, point(1, startMs, from, 0.6), point(2, endMs, to, 0));
  const phantom: MdsTrip = { ...before, trip_id: tripId, start_time: startMs, end_time: endMs, start_location: { ...from }, end_location: { lat: to.lat, lng: to.lng }, duration: 25, distance: 15, standard_cost: 125, actual_cost: 125 };
  out.trips.splice(out.trips.indexOf(before) + 1, 0, phantom);
}
