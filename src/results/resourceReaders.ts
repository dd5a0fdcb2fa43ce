// One reader per MDS item type (trips, events, telemetry, stops) and the table of each, column by
// column. Like `readVehicle`, a reader never throws: a field of the wrong type is '' or NaN. The panel's
// tables, its export and the CLI's rows all read items through these functions, so they show the same.
import * as l10n from '@vscode/l10n';
import { isRecord } from '../shared/isRecord';
import type { CategoryColumn, DataTableView, NumberColumn, PositionColumn, TextColumn, TimeColumn } from '../shared/dataTable';
import { readList, readNumber, readPosition, readText, readTime, readTypeCounts } from './fieldReaders';
import { CodeBook } from './vehicleReader';

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

/** Reads one item of `/trips`. */
export function readTrip(item: unknown): TripReading {
  const t = isRecord(item) ? item : {};
  const start = readPosition(t.start_location);
  const end = readPosition(t.end_location);
  return {
    tripId: readText(t.trip_id),
    deviceId: readText(t.device_id),
    providerId: readText(t.provider_id),
    tripType: readList(t.trip_type),
    startMs: readTime(t.start_time),
    endMs: readTime(t.end_time),
    durationSeconds: readNumber(t.duration),
    distanceMetres: readNumber(t.distance),
    startLat: start.lat,
    startLng: start.lng,
    endLat: end.lat,
    endLng: end.lng,
  };
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

/** Reads one item of `/events/historical` or `/events/recent`. */
export function readEvent(item: unknown): EventReading {
  const e = isRecord(item) ? item : {};
  const at = readPosition(e.location);
  return {
    timeMs: readTime(e.timestamp),
    deviceId: readText(e.device_id),
    providerId: readText(e.provider_id),
    eventTypes: readList(e.event_types),
    vehicleState: readText(e.vehicle_state),
    tripIds: readList(e.trip_ids),
    batteryPercent: readNumber(e.battery_percent),
    lat: at.lat,
    lng: at.lng,
    eventId: readText(e.event_id),
  };
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

/** Reads one item of `/telemetry`. */
export function readTelemetry(item: unknown): TelemetryReading {
  const p = isRecord(item) ? item : {};
  const location = isRecord(p.location) ? p.location : {};
  const at = readPosition(location);
  return {
    timeMs: readTime(p.timestamp),
    deviceId: readText(p.device_id),
    providerId: readText(p.provider_id),
    lat: at.lat,
    lng: at.lng,
    speed: readNumber(location.speed),
    batteryPercent: readNumber(p.battery_percent),
    tripIds: readList(p.trip_ids),
    telemetryId: readText(p.telemetry_id),
  };
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

/** Reads one item of `/stops`. */
export function readStop(item: unknown): StopReading {
  const s = isRecord(item) ? item : {};
  const at = readPosition(s.location);
  let status = '';
  if (isRecord(s.status)) {
    const flags = (['installed', 'renting', 'returning'] as const).filter((f) => s.status && (s.status as Record<string, unknown>)[`is_${f}`] === true);
    status = flags.length ? flags.join(', ') : 'closed';
  }
  return {
    stopId: readText(s.stop_id),
    name: readText(s.name),
    lat: at.lat,
    lng: at.lng,
    status,
    available: readTypeCounts(s.num_vehicles_available),
    disabled: readTypeCounts(s.num_vehicles_disabled),
    capacity: readTypeCounts(s.capacity),
    placesAvailable: readTypeCounts(s.num_places_available),
    lastUpdatedMs: readTime(s.last_updated),
  };
}

// Column builders: each fills its arrays row by row through `set`.
function text(id: string, label: string, n: number, hidden?: boolean): TextColumn {
  const column: TextColumn = { id, label, type: 'text', values: new Array<string>(n).fill('') };
  if (hidden) column.hidden = true;
  return column;
}
function category(id: string, label: string, n: number, book: CodeBook, states?: boolean): CategoryColumn {
  const column: CategoryColumn = { id, label, type: 'category', codes: new Uint16Array(n), names: book.names };
  if (states) column.states = true;
  return column;
}
function number(id: string, label: string, n: number, unit?: string, digits?: number): NumberColumn {
  const column: NumberColumn = { id, label, type: 'number', values: new Float64Array(n) };
  if (unit) column.unit = unit;
  if (digits !== undefined) column.digits = digits;
  return column;
}
function time(id: string, label: string, n: number): TimeColumn {
  return { id, label, type: 'time', values: new Float64Array(n) };
}
function position(id: string, label: string, n: number): PositionColumn {
  return { id, label, type: 'position', lat: new Float64Array(n), lng: new Float64Array(n) };
}

/** The trips table: trip id, device, start, end, duration, distance, start and end positions. */
export function tripTable(items: readonly unknown[]): DataTableView {
  const n = items.length;
  const types = new CodeBook();
  const c = {
    tripId: text('tripId', l10n.t('Trip ID'), n), deviceId: text('deviceId', l10n.t('Device ID'), n), providerId: text('providerId', l10n.t('Provider ID'), n, true),
    tripType: category('tripType', l10n.t('Trip type'), n, types), start: time('start', l10n.t('Start'), n), end: time('end', l10n.t('End'), n),
    duration: number('duration', l10n.t('Duration'), n, ' s', 0), distance: number('distance', l10n.t('Distance'), n, ' m', 0),
    startPosition: position('startPosition', l10n.t('Start position'), n), endPosition: position('endPosition', l10n.t('End position'), n),
  };
  for (let i = 0; i < n; i++) {
    const r = readTrip(items[i]);
    c.tripId.values[i] = r.tripId;
    c.deviceId.values[i] = r.deviceId;
    c.providerId.values[i] = r.providerId;
    c.tripType.codes[i] = types.code(r.tripType);
    c.start.values[i] = r.startMs;
    c.end.values[i] = r.endMs;
    c.duration.values[i] = r.durationSeconds;
    c.distance.values[i] = r.distanceMetres;
    c.startPosition.lat[i] = r.startLat;
    c.startPosition.lng[i] = r.startLng;
    c.endPosition.lat[i] = r.endLat;
    c.endPosition.lng[i] = r.endLng;
  }
  return { resource: 'trips', noun: ['trip', 'trips'], count: n, groupBy: 'tripType', columns: Object.values(c) };
}

/** The events table: time, device, event types, vehicle state, trip ids, battery, position. */
export function eventTable(items: readonly unknown[]): DataTableView {
  const n = items.length;
  const typeBook = new CodeBook();
  const stateBook = new CodeBook();
  const c = {
    time: time('time', l10n.t('Time'), n), deviceId: text('deviceId', l10n.t('Device ID'), n), eventTypes: category('eventTypes', l10n.t('Event types'), n, typeBook),
    state: category('state', l10n.t('Vehicle state'), n, stateBook, true), tripIds: text('tripIds', l10n.t('Trip IDs'), n), battery: number('battery', l10n.t('Battery'), n, ' %', 0),
    position: position('position', l10n.t('Position'), n), eventId: text('eventId', l10n.t('Event ID'), n, true), providerId: text('providerId', l10n.t('Provider ID'), n, true),
  };
  for (let i = 0; i < n; i++) {
    const r = readEvent(items[i]);
    c.time.values[i] = r.timeMs;
    c.deviceId.values[i] = r.deviceId;
    c.eventTypes.codes[i] = typeBook.code(r.eventTypes);
    c.state.codes[i] = stateBook.code(r.vehicleState);
    c.tripIds.values[i] = r.tripIds;
    c.battery.values[i] = r.batteryPercent;
    c.position.lat[i] = r.lat;
    c.position.lng[i] = r.lng;
    c.eventId.values[i] = r.eventId;
    c.providerId.values[i] = r.providerId;
  }
  return { resource: 'events', noun: ['event', 'events'], count: n, groupBy: 'state', columns: Object.values(c) };
}

/** The telemetry table: time, device, position, speed, battery, trip ids. */
export function telemetryTable(items: readonly unknown[]): DataTableView {
  const n = items.length;
  const c = {
    time: time('time', l10n.t('Time'), n), deviceId: text('deviceId', l10n.t('Device ID'), n), position: position('position', l10n.t('Position'), n),
    speed: number('speed', l10n.t('Speed'), n, ' m/s', 1), battery: number('battery', l10n.t('Battery'), n, ' %', 0), tripIds: text('tripIds', l10n.t('Trip IDs'), n),
    telemetryId: text('telemetryId', l10n.t('Telemetry ID'), n, true), providerId: text('providerId', l10n.t('Provider ID'), n, true),
  };
  for (let i = 0; i < n; i++) {
    const r = readTelemetry(items[i]);
    c.time.values[i] = r.timeMs;
    c.deviceId.values[i] = r.deviceId;
    c.position.lat[i] = r.lat;
    c.position.lng[i] = r.lng;
    c.speed.values[i] = r.speed;
    c.battery.values[i] = r.batteryPercent;
    c.tripIds.values[i] = r.tripIds;
    c.telemetryId.values[i] = r.telemetryId;
    c.providerId.values[i] = r.providerId;
  }
  return { resource: 'telemetry', noun: ['telemetry point', 'telemetry points'], count: n, columns: Object.values(c) };
}

/** The stops table: name, id, position, status, vehicles available and disabled, capacity. */
export function stopTable(items: readonly unknown[]): DataTableView {
  const n = items.length;
  const statusBook = new CodeBook();
  const c = {
    name: text('name', l10n.t('Name'), n), stopId: text('stopId', l10n.t('Stop ID'), n), position: position('position', l10n.t('Position'), n),
    status: category('status', l10n.t('Status'), n, statusBook), available: number('available', l10n.t('Available'), n, '', 0), disabled: number('disabled', l10n.t('Disabled'), n, '', 0),
    capacity: number('capacity', l10n.t('Capacity'), n, '', 0), placesAvailable: number('placesAvailable', l10n.t('Places free'), n, '', 0), lastUpdated: time('lastUpdated', l10n.t('Last updated'), n),
  };
  for (let i = 0; i < n; i++) {
    const r = readStop(items[i]);
    c.name.values[i] = r.name;
    c.stopId.values[i] = r.stopId;
    c.position.lat[i] = r.lat;
    c.position.lng[i] = r.lng;
    c.status.codes[i] = statusBook.code(r.status);
    c.available.values[i] = r.available;
    c.disabled.values[i] = r.disabled;
    c.capacity.values[i] = r.capacity;
    c.placesAvailable.values[i] = r.placesAvailable;
    c.lastUpdated.values[i] = r.lastUpdatedMs;
  }
  return { resource: 'stops', noun: ['stop', 'stops'], count: n, groupBy: 'status', columns: Object.values(c) };
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
    const column = text(id, label, n);
    cells.forEach((cell, i) => (column.values[i] = cell));
    return column;
  });
  return { resource: 'report', noun: ['row', 'rows'], count: n, columns: out };
}
