/**
 * The stops of the synthetic world (MDS 2.0 Stops, beta): mobility hubs at well-known Berlin
 * places. Their occupancy changes every five minutes, derived from (seed, stop, time slot); it is
 * not tied to where the dockless fleet is parked.
 */
import type { MdsStop, VehicleTypeCounts } from '../../core/mds';
import { hashOf, worldUuid } from './worldRandom';

const SLOT_MS = 5 * 60_000;

/** Name, short name, postcode and centre of each hub. */
const HUBS: readonly [string, string, string, number, number][] = [
  ['Alexanderplatz Mobility Hub', 'Alex', '10178', 52.52186, 13.41321],
  ['Berlin Hauptbahnhof Nord', 'Hbf', '10557', 52.52585, 13.36923],
  ['Potsdamer Platz', 'Potsdamer', '10785', 52.50934, 13.37589],
  ['Warschauer Straße', 'Warschauer', '10243', 52.50577, 13.44924],
  ['Hermannplatz', 'Hermannpl', '10967', 52.48686, 13.42436],
  ['Zoologischer Garten', 'Zoo', '10623', 52.50717, 13.33218],
  ['Ostkreuz', 'Ostkreuz', '10245', 52.50298, 13.46942],
  ['Gesundbrunnen', 'Gesundbr', '13357', 52.54878, 13.38846],
  ['Südkreuz', 'Suedkreuz', '10829', 52.47528, 13.36555],
  ['Schönhauser Allee', 'Schoenh', '10437', 52.54922, 13.41396],
];

const CAPACITY: VehicleTypeCounts = { scooter_standing: 24, bicycle: 12, cargo_bicycle: 2 };

/** The stop ids of the world, in order. */
export function stopIds(seed: number): string[] {
  return HUBS.map((_, i) => worldUuid(seed, 'stop', i, 0, 0));
}

/** Every stop as it is at `nowMs`. */
export function stopsAt(seed: number, providerId: string, nowMs: number): MdsStop[] {
  const slot = Math.floor(nowMs / SLOT_MS);
  const ids = stopIds(seed);
  return HUBS.map(([name, shortName, postCode, lat, lng], i) => {
    const available: VehicleTypeCounts = {};
    const disabled: VehicleTypeCounts = {};
    const free: VehicleTypeCounts = {};
    for (const [t, [type, capacity]] of (Object.entries(CAPACITY) as [keyof VehicleTypeCounts, number][]).entries()) {
      const h = hashOf(seed, 0x5709, i, slot, t);
      const broken = h % 3 === 0 ? 1 : 0;
      const parked = (h >>> 4) % (capacity - broken + 1);
      available[type] = parked;
      disabled[type] = broken;
      free[type] = capacity - parked - broken;
    }
    // One hub is closed for works now and then, so clients see a stop that does not rent.
    const closed = hashOf(seed, 0xc105, i, Math.floor(slot / 12)) % 17 === 0;
    return {
      stop_id: ids[i] ?? '',
      name,
      short_name: shortName,
      post_code: postCode,
      provider_id: providerId,
      last_updated: slot * SLOT_MS,
      location: { lat, lng },
      status: { is_installed: true, is_renting: !closed, is_returning: !closed },
      capacity: { ...CAPACITY },
      num_vehicles_available: available,
      num_vehicles_disabled: disabled,
      num_places_available: free,
      rental_methods: ['phone', 'creditcard'],
    };
  });
}
