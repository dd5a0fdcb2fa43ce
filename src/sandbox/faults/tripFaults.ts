/**
 * The item faults of issue 39's trip and telemetry rules (`sandbox --data-faults`): a duration in milliseconds
 * (trip-duration), a distance in kilometres (trip-distance), a point of a trip 30 km away (telemetry-speed), a trip whose
 * telemetry stops after its first minute (trip-telemetry-coverage). A parked vehicle that drifts (idle-drift) is a
 * heartbeat fault, in dataFaults.ts. A trip whose publication_time is its start_time, stamped when the trip record was
 * opened rather than when /trips served it (publication-before-time). A trip whose points report their speed in km/h
 * (telemetry-speed-unit). Like the others, each changes only its own trip's items.
 */
import type { MdsTrip } from '../../core/mds';
import type { EpisodeItems } from '../world/episodeDetails';
import { offsetBy } from '../world/worldGeography';
import type { DataFaultEntry, DataFaultRule } from './faultRules';

export type TripFaultKind =
  'duration-ms' | 'distance-km' | 'telemetry-jump' | 'first-minute' | 'published-at-start' | 'speed-kmh';

export const TRIP_FAULT_KINDS: readonly (readonly [TripFaultKind, DataFaultRule])[] = [
  ['duration-ms', 'trip-duration'],
  ['distance-km', 'trip-distance'],
  ['telemetry-jump', 'telemetry-speed'],
  ['first-minute', 'trip-telemetry-coverage'],
  ['published-at-start', 'publication-before-time'],
  ['speed-kmh', 'telemetry-speed-unit'],
];

/** The speed-kmh fault takes trips whose points report at most this (m/s): in km/h, still below check's maxSpeedMetersPerSecond (45). */
const KMH_MAX_MPS = 10;
const KMH = 3.6;

export function isTripFaultKind(kind: string): kind is TripFaultKind {
  return TRIP_FAULT_KINDS.some(([k]) => k === kind);
}

/** How far the telemetry jump moves one point of a trip, north (check's speed limit is 45 m/s; points are 30 s apart). */
const JUMP_METRES = 30_000;
/** The distance in kilometres is taken on trips of at least this many metres, so that rounding to whole km stays within 20 %. */
const KM_TRIP_METRES = 2500;
/** The trip whose telemetry stops after its first minute lasts at least this long (check allows 60 s at either end). */
const COVERAGE_TRIP_MS = 5 * 60_000;
const FIRST_MINUTE_MS = 60_000;

/** The trip's points, in time order. */
const pointsOf = (items: EpisodeItems, trip: MdsTrip) =>
  items.telemetry.filter((p) => p.trip_ids?.[0] === trip.trip_id).sort((a, b) => a.timestamp - b.timestamp);

/** Whether `kind` fits one of `inHour` (the episode's trips inside its hour), and the listing entries of its fault. */
export function describeTripFault(
  kind: TripFaultKind,
  inHour: readonly MdsTrip[],
  items: EpisodeItems,
  entry: (time: number, detail: string, trip: string | null) => DataFaultEntry,
): { target: string; entry: DataFaultEntry; also?: DataFaultEntry } | undefined {
  switch (kind) {
    case 'duration-ms': {
      const t = inHour[0];
      return (
        t && {
          target: t.trip_id,
          entry: entry(
            t.start_time,
            `the duration in milliseconds: ${t.duration * 1000} instead of ${t.duration} s`,
            t.trip_id,
          ),
        }
      );
    }
    case 'distance-km': {
      // A distance of a few kilometres is below phantomMeters (50) too: phantom-trips sees it as well.
      const t = inHour.find((trip) => trip.distance >= KM_TRIP_METRES);
      return (
        t && {
          target: t.trip_id,
          entry: entry(
            t.start_time,
            `the distance in kilometres: ${Math.round(t.distance / 1000)} instead of ${t.distance} m`,
            t.trip_id,
          ),
          also: {
            ...entry(
              t.start_time,
              `the distance in kilometres, ${Math.round(t.distance / 1000)}, is below phantomMeters too (a consequence of the trip-distance fault)`,
              t.trip_id,
            ),
            rule: 'phantom-trips',
          },
        }
      );
    }
    case 'telemetry-jump': {
      // The trip's second point, between two points 30 s from it: the first step too fast ends there.
      const t = inHour.find((trip) => pointsOf(items, trip).length >= 4);
      const p = t && pointsOf(items, t)[1];
      return (
        t &&
        p && {
          target: p.telemetry_id,
          entry: entry(
            p.timestamp,
            `a telemetry point of the trip ${JUMP_METRES / 1000} km away from its neighbours, 30 s before and after it`,
            t.trip_id,
          ),
        }
      );
    }
    case 'first-minute': {
      const t = inHour.find((trip) => trip.end_time - trip.start_time >= COVERAGE_TRIP_MS);
      return (
        t && {
          target: t.trip_id,
          entry: entry(
            t.end_time,
            `the trip's telemetry stops after its first minute, ${Math.round((t.end_time - t.start_time - FIRST_MINUTE_MS) / 1000)} s before its end`,
            t.trip_id,
          ),
        }
      );
    }
    case 'speed-kmh': {
      // MDS 2.0.2 data-types.md, GPS Data: speed in metres per second; a fleet whose devices report km/h sends 3.6 times it.
      const t = inHour.find(
        (trip) =>
          pointsOf(items, trip).length >= 4 &&
          pointsOf(items, trip).every((p) => (p.location.speed ?? 0) <= KMH_MAX_MPS) &&
          (pointsOf(items, trip)[0].location.speed ?? 0) >= 1.5,
      );
      const first = t && pointsOf(items, t)[0];
      return (
        t &&
        first && {
          target: t.trip_id,
          entry: entry(
            first.timestamp,
            `the trip's telemetry speeds in km/h: ${Math.round((first.location.speed ?? 0) * KMH * 10) / 10} instead of ${first.location.speed ?? 0} m/s`,
            t.trip_id,
          ),
        }
      );
    }
    case 'published-at-start': {
      const t = inHour[0];
      return (
        t && {
          target: t.trip_id,
          entry: entry(
            t.end_time,
            `a publication_time of ${t.start_time}, the trip's start_time: ${Math.round((t.end_time - t.start_time) / 1000)} s before its end_time`,
            t.trip_id,
          ),
        }
      );
    }
  }
}

/** `out` (a copy of the episode's lists) with the fault of `kind` on `target` (a trip_id, or a telemetry_id). */
export function applyTripFault(kind: TripFaultKind, target: string, out: EpisodeItems): EpisodeItems {
  const tripIndex = out.trips.findIndex((t) => t.trip_id === target);
  const trip = out.trips[tripIndex];
  switch (kind) {
    case 'duration-ms':
      out.trips[tripIndex] = { ...trip, duration: trip.duration * 1000 };
      break;
    case 'distance-km':
      out.trips[tripIndex] = { ...trip, distance: Math.round(trip.distance / 1000) };
      break;
    case 'telemetry-jump': {
      const i = out.telemetry.findIndex((p) => p.telemetry_id === target);
      const p = out.telemetry[i];
      const moved = offsetBy(p.location, JUMP_METRES, 0);
      out.telemetry[i] = { ...p, location: { ...p.location, lat: moved.lat, lng: moved.lng } };
      break;
    }
    case 'first-minute':
      out.telemetry = out.telemetry.filter(
        (p) => p.trip_ids?.[0] !== target || p.timestamp - trip.start_time <= FIRST_MINUTE_MS,
      );
      break;
    case 'speed-kmh':
      out.telemetry = out.telemetry.map((p) =>
        p.trip_ids?.[0] === target && p.location.speed !== undefined
          ? { ...p, location: { ...p.location, speed: Math.round(p.location.speed * KMH * 10) / 10 } }
          : p,
      );
      break;
    case 'published-at-start':
      // publication_time is optional (MDS 2.0.2 data-types.md, Trips); the sandbox's trips carry none but this one.
      out.trips[tripIndex] = { ...trip, publication_time: trip.start_time } as MdsTrip;
      break;
  }
  return out;
}
