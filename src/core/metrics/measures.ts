/**
 * The measures of MDS 2.0.2's core and dockless metrics (`metrics/core_metrics.md`, `metrics/dockless_metrics.md`),
 * named as OMF names them, with the vehicle states and event types of MDS 2.0.2's state machines.
 */
import * as l10n from '@vscode/l10n';
import { MODE_MACHINES } from '../analysis';
import { MobilityError } from '../base';

/** What a measure is computed from. */
export type MeasureFamily = 'state' | 'deployedRange' | 'events' | 'trips' | 'activity' | 'idle' | 'tripsPerVehicle';

/** One requested measure, parsed. */
export interface Measure {
  name: string;
  family: MeasureFamily;
  /** The Metrics API's data type of its column. */
  dataType: 'integer' | 'float';
  /** The vehicle state (`state`), event type (`events`) or `start_loc`/`end_loc` (`trips`). */
  key?: string;
  /** `avg`, `min`, `max`, `duration.sum`, `count`, `duration.med`, `avg.min`, `active`, … */
  stat: string;
  /** The harvest's tables it needs. */
  tables: ('events' | 'trips')[];
}

/** The vehicle states of MDS 2.0.2, over every mode. */
export function vehicleStates(): string[] {
  return [...new Set(Object.values(MODE_MACHINES.modes).flatMap((m) => m.states))].sort();
}

/** The event types of MDS 2.0.2, over every mode. */
export function eventTypes(): string[] {
  return [...new Set(Object.values(MODE_MACHINES.modes).flatMap((m) => m.transitions.map((t) => t[1])))].sort();
}

/** OMF's "public right of way" of the dockless metrics (available, unavailable, reserved, trip), in MDS 2.0 states. */
export const DEFAULT_DEPLOYED_STATES = ['available', 'non_operational', 'reserved', 'on_trip'] as const;

const TRIP_STATS = [
  'count',
  'duration.avg',
  'duration.med',
  'duration.std',
  'duration.sum',
  'distance.avg',
  'distance.med',
  'distance.std',
  'distance.sum',
];

/** Every measure name pattern, for the usage error and the docs. */
export const MEASURE_PATTERNS = [
  'vehicles.<state>.avg',
  'vehicles.<state>.min',
  'vehicles.<state>.max',
  'vehicles.<state>.duration.sum',
  'events.<event_type>.count',
  ...TRIP_STATS.map((s) => `trips.<start_loc|end_loc>.${s}`),
  'dockless.deployed.avg',
  'dockless.deployed.min',
  'dockless.deployed.max',
  'dockless.deployed.avg.min',
  'dockless.deployed.avg.max',
  'dockless.active.count',
  'dockless.inactive.count',
  'dockless.utilization.idle.percent',
  'dockless.utilization.active.percent',
  'dockless.utilization.trips_per_vehicle.avg',
];

/** Parses one measure name; refuses one OMF does not define, naming the patterns. */
export function parseMeasure(name: string): Measure {
  const refuse = (why: string) =>
    new MobilityError(
      'USAGE',
      l10n.t(
        '--measures: {0} is not a metric of MDS 2.0.2 ({1}). The measures: {2}.',
        name,
        why,
        MEASURE_PATTERNS.join(', '),
      ),
    );
  const parts = name.split('.');
  if (parts[0] === 'vehicles') {
    const state = parts[1];
    const stat = parts.slice(2).join('.');
    if (!['avg', 'min', 'max', 'duration.sum'].includes(stat))
      throw refuse(l10n.t('a vehicles measure ends in .avg, .min, .max or .duration.sum'));
    if (!vehicleStates().includes(state))
      throw refuse(l10n.t('the vehicle states are {0}', vehicleStates().join(', ')));
    return {
      name,
      family: 'state',
      dataType: stat === 'min' || stat === 'max' ? 'integer' : 'float',
      key: state,
      stat,
      tables: ['events'],
    };
  }
  if (parts[0] === 'events') {
    if (parts.length !== 3 || parts[2] !== 'count')
      throw refuse(l10n.t('an events measure is events.<event_type>.count'));
    if (!eventTypes().includes(parts[1])) throw refuse(l10n.t('the event types are {0}', eventTypes().join(', ')));
    return { name, family: 'events', dataType: 'integer', key: parts[1], stat: 'count', tables: ['events'] };
  }
  if (parts[0] === 'trips') {
    const stat = parts.slice(2).join('.');
    if (parts[1] !== 'start_loc' && parts[1] !== 'end_loc')
      throw refuse(l10n.t('a trips measure starts trips.start_loc or trips.end_loc'));
    if (!TRIP_STATS.includes(stat)) throw refuse(l10n.t('a trips measure ends in .{0}', TRIP_STATS.join(', .')));
    return {
      name,
      family: 'trips',
      dataType: stat === 'count' ? 'integer' : 'float',
      key: parts[1],
      stat,
      tables: ['trips'],
    };
  }
  switch (name) {
    case 'dockless.deployed.avg':
      return { name, family: 'state', dataType: 'float', key: 'deployed', stat: 'avg', tables: ['events'] };
    case 'dockless.deployed.min':
      return { name, family: 'state', dataType: 'integer', key: 'deployed', stat: 'min', tables: ['events'] };
    case 'dockless.deployed.max':
      return { name, family: 'state', dataType: 'integer', key: 'deployed', stat: 'max', tables: ['events'] };
    case 'dockless.deployed.avg.min':
      return { name, family: 'deployedRange', dataType: 'float', stat: 'avg.min', tables: ['events'] };
    case 'dockless.deployed.avg.max':
      return { name, family: 'deployedRange', dataType: 'float', stat: 'avg.max', tables: ['events'] };
    case 'dockless.active.count':
      return { name, family: 'activity', dataType: 'integer', stat: 'active', tables: ['events'] };
    case 'dockless.inactive.count':
      return { name, family: 'activity', dataType: 'integer', stat: 'inactive', tables: ['events'] };
    case 'dockless.utilization.active.percent':
      return { name, family: 'activity', dataType: 'float', stat: 'active.percent', tables: ['events'] };
    case 'dockless.utilization.idle.percent':
      return { name, family: 'idle', dataType: 'float', stat: 'idle.percent', tables: ['events'] };
    case 'dockless.utilization.trips_per_vehicle.avg':
      return {
        name,
        family: 'tripsPerVehicle',
        dataType: 'float',
        stat: 'trips_per_vehicle',
        tables: ['events', 'trips'],
      };
    default:
      throw refuse(l10n.t('no such name'));
  }
}

/** Parses `--measures a,b,c`: each once, in the order given. */
export function parseMeasures(text: string): Measure[] {
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!names.length)
    throw new MobilityError(
      'USAGE',
      l10n.t('--measures: name at least one metric, such as dockless.deployed.avg,trips.start_loc.count.'),
    );
  return [...new Set(names)].map(parseMeasure);
}

/** Whether a measure is a count that k-anonymity redacts (OMF: "fewer than k … in a count": every `.count`). */
export const isRedactedCount = (m: Measure) => m.name.endsWith('.count');
