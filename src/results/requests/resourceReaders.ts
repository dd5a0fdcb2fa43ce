// One reader per MDS item type (trips, events, telemetry, stops) and the table of each, column by
// column, both made from one table per resource: which field of the item each reading comes from
// (`TRIP_FIELDS`…) and which reading each column shows (`TRIP_TABLE`…). Like `readVehicle`, a reader
// never throws: a field of the wrong type is '' or NaN. The panel's tables, its export and the CLI's
// rows all read items through these functions, so they show the same.
import * as l10n from '@vscode/l10n';
import { isRecord } from '../../shared/isRecord';
import type { DataTableView, TextColumn } from '../../shared/dataTable';
import { readText } from './fieldReaders';
import type { Fields, Item, TableSpec } from './itemTables';
import { field, number, readItem, tableOf } from './itemTables';

/** What one trip shows. */
export interface TripReading {
  tripId: string;
  deviceId: string;
  providerId: string;
  tripType: string;
  startMs: number;
  endMs: number;
  durationSeconds: number;
  distanceMetres: number;
  startLat: number;
  startLng: number;
  endLat: number;
  endLng: number;
}

const TRIP_START = field.position('start_location');
const TRIP_END = field.position('end_location');
const TRIP_FIELDS: Fields<TripReading> = {
  tripId: field.text('trip_id'),
  deviceId: field.text('device_id'),
  providerId: field.text('provider_id'),
  tripType: field.list('trip_type'),
  startMs: field.time('start_time'),
  endMs: field.time('end_time'),
  durationSeconds: field.number('duration'),
  distanceMetres: field.number('distance'),
  startLat: TRIP_START.lat,
  startLng: TRIP_START.lng,
  endLat: TRIP_END.lat,
  endLng: TRIP_END.lng,
};

/** Reads one item of `/trips`. */
export function readTrip(item: unknown): TripReading {
  return readItem(TRIP_FIELDS, item);
}

/** What one event shows. */
export interface EventReading {
  timeMs: number;
  deviceId: string;
  providerId: string;
  eventTypes: string;
  vehicleState: string;
  tripIds: string;
  batteryPercent: number;
  lat: number;
  lng: number;
  eventId: string;
}

const EVENT_AT = field.position('location');
const EVENT_FIELDS: Fields<EventReading> = {
  timeMs: field.time('timestamp'),
  deviceId: field.text('device_id'),
  providerId: field.text('provider_id'),
  eventTypes: field.list('event_types'),
  vehicleState: field.text('vehicle_state'),
  tripIds: field.list('trip_ids'),
  batteryPercent: field.number('battery_percent'),
  lat: EVENT_AT.lat,
  lng: EVENT_AT.lng,
  eventId: field.text('event_id'),
};

/** Reads one item of `/events/historical` or `/events/recent`. */
export function readEvent(item: unknown): EventReading {
  return readItem(EVENT_FIELDS, item);
}

/** What one telemetry point shows. */
export interface TelemetryReading {
  timeMs: number;
  deviceId: string;
  providerId: string;
  lat: number;
  lng: number;
  /** Metres per second (`location.speed`). */
  speed: number;
  batteryPercent: number;
  tripIds: string;
  telemetryId: string;
}

const TELEMETRY_AT = field.position('location');
const TELEMETRY_FIELDS: Fields<TelemetryReading> = {
  timeMs: field.time('timestamp'),
  deviceId: field.text('device_id'),
  providerId: field.text('provider_id'),
  lat: TELEMETRY_AT.lat,
  lng: TELEMETRY_AT.lng,
  speed: field.number('location', 'speed'),
  batteryPercent: field.number('battery_percent'),
  tripIds: field.list('trip_ids'),
  telemetryId: field.text('telemetry_id'),
};

/** Reads one item of `/telemetry`. */
export function readTelemetry(item: unknown): TelemetryReading {
  return readItem(TELEMETRY_FIELDS, item);
}

/** What one stop shows. */
export interface StopReading {
  stopId: string;
  name: string;
  lat: number;
  lng: number;
  /** `installed, renting, returning`, the flags that are true; `closed` when none is. */
  status: string;
  /** Vehicles available, all types together. */
  available: number;
  disabled: number;
  capacity: number;
  placesAvailable: number;
  lastUpdatedMs: number;
}

/** A stop's `status` object as the flags that are true, `closed` when none is, '' when there is none. */
function stopStatus(item: Item): string {
  const status = item.status;
  if (!isRecord(status)) return '';
  const flags = (['installed', 'renting', 'returning'] as const).filter((f) => status[`is_${f}`] === true);
  return flags.length ? flags.join(', ') : 'closed';
}

const STOP_AT = field.position('location');
const STOP_FIELDS: Fields<StopReading> = {
  stopId: field.text('stop_id'),
  name: field.text('name'),
  lat: STOP_AT.lat,
  lng: STOP_AT.lng,
  status: stopStatus,
  available: field.typeCounts('num_vehicles_available'),
  disabled: field.typeCounts('num_vehicles_disabled'),
  capacity: field.typeCounts('capacity'),
  placesAvailable: field.typeCounts('num_places_available'),
  lastUpdatedMs: field.time('last_updated'),
};

/** Reads one item of `/stops`. */
export function readStop(item: unknown): StopReading {
  return readItem(STOP_FIELDS, item);
}

const TRIP_TABLE: TableSpec<TripReading> = {
  resource: 'trips',
  noun: ['trip', 'trips'],
  groupBy: 'tripType',
  fields: TRIP_FIELDS,
  columns: () => [
    { id: 'tripId', label: l10n.t('Trip ID'), type: 'text', from: 'tripId' },
    { id: 'deviceId', label: l10n.t('Device ID'), type: 'text', from: 'deviceId' },
    { id: 'providerId', label: l10n.t('Provider ID'), type: 'text', from: 'providerId', hidden: true },
    { id: 'tripType', label: l10n.t('Trip type'), type: 'category', from: 'tripType' },
    { id: 'start', label: l10n.t('Start'), type: 'time', from: 'startMs' },
    { id: 'end', label: l10n.t('End'), type: 'time', from: 'endMs' },
    { id: 'duration', label: l10n.t('Duration'), type: 'number', from: 'durationSeconds', unit: ' s', digits: 0 },
    { id: 'distance', label: l10n.t('Distance'), type: 'number', from: 'distanceMetres', unit: ' m', digits: 0 },
    { id: 'startPosition', label: l10n.t('Start position'), type: 'position', lat: 'startLat', lng: 'startLng' },
    { id: 'endPosition', label: l10n.t('End position'), type: 'position', lat: 'endLat', lng: 'endLng' },
  ],
};

const EVENT_TABLE: TableSpec<EventReading> = {
  resource: 'events',
  noun: ['event', 'events'],
  groupBy: 'state',
  fields: EVENT_FIELDS,
  columns: () => [
    { id: 'time', label: l10n.t('Time'), type: 'time', from: 'timeMs' },
    { id: 'deviceId', label: l10n.t('Device ID'), type: 'text', from: 'deviceId' },
    { id: 'eventTypes', label: l10n.t('Event types'), type: 'category', from: 'eventTypes' },
    { id: 'state', label: l10n.t('Vehicle state'), type: 'category', from: 'vehicleState', states: true },
    { id: 'tripIds', label: l10n.t('Trip IDs'), type: 'text', from: 'tripIds' },
    { id: 'battery', label: l10n.t('Battery'), type: 'number', from: 'batteryPercent', unit: ' %', digits: 0 },
    { id: 'position', label: l10n.t('Position'), type: 'position', lat: 'lat', lng: 'lng' },
    { id: 'eventId', label: l10n.t('Event ID'), type: 'text', from: 'eventId', hidden: true },
    { id: 'providerId', label: l10n.t('Provider ID'), type: 'text', from: 'providerId', hidden: true },
  ],
};

const TELEMETRY_TABLE: TableSpec<TelemetryReading> = {
  resource: 'telemetry',
  noun: ['telemetry point', 'telemetry points'],
  fields: TELEMETRY_FIELDS,
  columns: () => [
    { id: 'time', label: l10n.t('Time'), type: 'time', from: 'timeMs' },
    { id: 'deviceId', label: l10n.t('Device ID'), type: 'text', from: 'deviceId' },
    { id: 'position', label: l10n.t('Position'), type: 'position', lat: 'lat', lng: 'lng' },
    { id: 'speed', label: l10n.t('Speed'), type: 'number', from: 'speed', unit: ' m/s', digits: 1 },
    { id: 'battery', label: l10n.t('Battery'), type: 'number', from: 'batteryPercent', unit: ' %', digits: 0 },
    { id: 'tripIds', label: l10n.t('Trip IDs'), type: 'text', from: 'tripIds' },
    { id: 'telemetryId', label: l10n.t('Telemetry ID'), type: 'text', from: 'telemetryId', hidden: true },
    { id: 'providerId', label: l10n.t('Provider ID'), type: 'text', from: 'providerId', hidden: true },
  ],
};

const STOP_TABLE: TableSpec<StopReading> = {
  resource: 'stops',
  noun: ['stop', 'stops'],
  groupBy: 'status',
  fields: STOP_FIELDS,
  columns: () => [
    { id: 'name', label: l10n.t('Name'), type: 'text', from: 'name' },
    { id: 'stopId', label: l10n.t('Stop ID'), type: 'text', from: 'stopId' },
    { id: 'position', label: l10n.t('Position'), type: 'position', lat: 'lat', lng: 'lng' },
    { id: 'status', label: l10n.t('Status'), type: 'category', from: 'status' },
    { id: 'available', label: l10n.t('Available'), type: 'number', from: 'available', unit: '', digits: 0 },
    { id: 'disabled', label: l10n.t('Disabled'), type: 'number', from: 'disabled', unit: '', digits: 0 },
    { id: 'capacity', label: l10n.t('Capacity'), type: 'number', from: 'capacity', unit: '', digits: 0 },
    {
      id: 'placesAvailable',
      label: l10n.t('Places free'),
      type: 'number',
      from: 'placesAvailable',
      unit: '',
      digits: 0,
    },
    { id: 'lastUpdated', label: l10n.t('Last updated'), type: 'time', from: 'lastUpdatedMs' },
  ],
};

/** The trips table: trip id, device, start, end, duration, distance, start and end positions. */
export function tripTable(items: readonly unknown[]): DataTableView {
  return tableOf(TRIP_TABLE, items);
}

/** The events table: time, device, event types, vehicle state, trip ids, battery, position. */
export function eventTable(items: readonly unknown[]): DataTableView {
  return tableOf(EVENT_TABLE, items);
}

/** The telemetry table: time, device, position, speed, battery, trip ids. */
export function telemetryTable(items: readonly unknown[]): DataTableView {
  return tableOf(TELEMETRY_TABLE, items);
}

/** The stops table: name, id, position, status, vehicles available and disabled, capacity. */
export function stopTable(items: readonly unknown[]): DataTableView {
  return tableOf(STOP_TABLE, items);
}

/** Columns of a CSV whose every non-empty cell is a number (`trip_count`, `-1` included) sort as numbers. */
const NUMERIC_CELL = /^-?\d+(\.\d+)?$/;

/** A CSV answer (an MDS report) as a table: one column per CSV column, numbers where every cell is one. */
export function csvTable(columns: readonly string[], rows: readonly unknown[]): DataTableView {
  const n = rows.length;
  const out = columns.slice(0, 200).map((name, index) => {
    const cells = rows.map((row) => (isRecord(row) ? readText(row[name]) : ''));
    const numeric = n > 0 && cells.every((cell) => cell === '' || NUMERIC_CELL.test(cell));
    const id = `c${index}`;
    const label = readText(name) || l10n.t('column {0}', index + 1);
    if (numeric) {
      const column = number(id, label, n);
      cells.forEach((cell, i) => (column.values[i] = cell === '' ? NaN : Number(cell)));
      return column;
    }
    const column: TextColumn = { id, label, type: 'text', values: new Array<string>(n).fill('') };
    cells.forEach((cell, i) => (column.values[i] = cell));
    return column;
  });
  return { resource: 'report', noun: ['row', 'rows'], count: n, columns: out };
}
