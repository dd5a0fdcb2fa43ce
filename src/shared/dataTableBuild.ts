// DataTableViews made (dataTable.ts holds the model): the vehicle table from VehicleColumns, sharing its arrays, and
// one table from two (the next pages of one resource). Pure: no DOM, no Node.
import * as l10n from '@vscode/l10n';
import type { DataColumn, DataTableView, TableResource } from './dataTable';
import type { VehicleColumns } from './vehicleColumns';

/**
 * The vehicle table (VehicleColumns) as a DataTableView, sharing its arrays (no copy): vehicles are
 * shown, sorted, filtered, plotted and exported like every other resource.
 */
export function vehicleDataTable(cols: VehicleColumns, resource: TableResource = 'vehicles'): DataTableView {
  return {
    resource,
    noun: ['vehicle', 'vehicles'],
    count: cols.count,
    groupBy: 'state',
    columns: [
      { id: 'deviceId', label: l10n.t('Device ID'), type: 'text', values: cols.deviceId },
      { id: 'vehicleId', label: l10n.t('Vehicle ID'), type: 'text', values: cols.vehicleId },
      // One provider per feed: a column of equal values is noise (still exported).
      { id: 'providerId', label: l10n.t('Provider ID'), type: 'text', values: cols.providerId, hidden: true },
      { id: 'type', label: l10n.t('Type'), type: 'category', codes: cols.typeCode, names: cols.typeNames },
      {
        id: 'propulsion',
        label: l10n.t('Propulsion'),
        type: 'category',
        codes: cols.propulsionCode,
        names: cols.propulsionNames,
      },
      {
        id: 'state',
        label: l10n.t('State'),
        type: 'category',
        codes: cols.stateCode,
        names: cols.stateNames,
        states: true,
      },
      { id: 'battery', label: l10n.t('Battery'), type: 'number', values: cols.battery, unit: ' %', digits: 0 },
      { id: 'lastEvent', label: l10n.t('Last event'), type: 'time', values: cols.lastEvent },
      { id: 'position', label: l10n.t('Position'), type: 'position', lat: cols.lat, lng: cols.lng },
    ],
  };
}

/** `a`'s codes followed by `b`'s, with `b`'s names mapped into `a`'s name list (shared by every categorical column). */
export function remapCodes(
  count: number,
  a: { codes: Uint16Array; names: string[] },
  aCount: number,
  b: { codes: Uint16Array; names: string[] },
  bCount: number,
): { codes: Uint16Array; names: string[] } {
  const merged = [...a.names];
  const index = new Map(merged.map((name, i) => [name, i]));
  const translate = b.names.map((name) => {
    let code = index.get(name);
    if (code === undefined) {
      // Beyond 65535 distinct names the rest share the last code rather than wrap around.
      code = merged.length < 0xffff ? merged.length : 0xfffe;
      if (code === merged.length) {
        merged.push(name);
        index.set(name, code);
      }
    }
    return code;
  });
  const out = new Uint16Array(count);
  out.set(a.codes.subarray(0, aCount), 0);
  for (let i = 0; i < bCount; i++) out[aCount + i] = translate[b.codes[i]] ?? 0;
  return { codes: out, names: merged };
}

function concatFloats(count: number, x: Float64Array, xCount: number, y: Float64Array, yCount: number): Float64Array {
  const out = new Float64Array(count);
  out.set(x.subarray(0, xCount), 0);
  out.set(y.subarray(0, yCount), xCount);
  return out;
}

/** `a` followed by `b` (the next pages of one resource); columns of `b` that `a` lacks are dropped. Neither input changes. */
export function concatDataTables(a: DataTableView, b: DataTableView): DataTableView {
  const n = a.count + b.count;
  const columns = a.columns.map((column): DataColumn => {
    const other = b.columns.find((c) => c.id === column.id && c.type === column.type);
    switch (column.type) {
      case 'text': {
        const more = other?.type === 'text' ? other.values : new Array<string>(b.count).fill('');
        return { ...column, values: column.values.concat(more) };
      }
      case 'category': {
        const more = other?.type === 'category' ? other : { codes: new Uint16Array(b.count), names: [''] };
        return { ...column, ...remapCodes(n, column, a.count, more, b.count) };
      }
      case 'number':
      case 'time': {
        const more = other?.type === column.type ? other.values : new Float64Array(b.count).fill(NaN);
        return { ...column, values: concatFloats(n, column.values, a.count, more, b.count) };
      }
      case 'position': {
        const more =
          other?.type === 'position'
            ? other
            : { lat: new Float64Array(b.count).fill(NaN), lng: new Float64Array(b.count).fill(NaN) };
        return {
          ...column,
          lat: concatFloats(n, column.lat, a.count, more.lat, b.count),
          lng: concatFloats(n, column.lng, a.count, more.lng, b.count),
        };
      }
    }
  });
  return { ...a, count: n, columns };
}
