// The panel's items as shown: a key id (or token) of ours that a server echoed inside its items (a vehicle_id, a
// provider's note) is masked in every text cell of the tables and every text of the JSON tree, as everywhere else it
// is shown (spec 5.7). `mask` is a masker of these exact values (`pagesMasker`, `sentMasker`): a server's other
// values stay as they came.
import type { DataTableView } from '../../shared/dataTable';
import type { VehicleColumns } from '../../shared/vehicleColumns';

/** `table` with `mask` applied to its text cells and category names (in place; returned for chaining). */
export function maskTableText(table: DataTableView, mask: (text: string) => string): DataTableView {
  for (const column of table.columns) {
    if (column.type === 'text') maskAll(column.values, mask);
    else if (column.type === 'category') maskAll(column.names, mask);
  }
  return table;
}

/** The vehicle table with `mask` applied to its ids and names (in place; returned for chaining). */
export function maskVehicleText(columns: VehicleColumns, mask: (text: string) => string): VehicleColumns {
  for (const values of [
    columns.deviceId,
    columns.vehicleId,
    columns.providerId,
    columns.typeNames,
    columns.propulsionNames,
    columns.stateNames,
  ])
    maskAll(values, mask);
  return columns;
}

function maskAll(values: string[], mask: (text: string) => string): void {
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (typeof value === 'string' && value !== '') values[i] = mask(value);
  }
}

/** A JSON value with `mask` applied to every string in it, keys too; the value itself when nothing was masked. */
export function maskJsonText(value: unknown, mask: (text: string) => string): unknown {
  if (typeof value === 'string') return mask(value);
  if (Array.isArray(value)) return value.map((v) => maskJsonText(v, mask));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [mask(k), maskJsonText(v, mask)]));
  }
  return value;
}
