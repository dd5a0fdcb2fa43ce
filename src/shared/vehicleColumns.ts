// The vehicle table's columns as the host reads them from a listing and the webview shows them. Type only: the
// table model (dataTable.ts) and the listing view (listingViews.ts) both build on it.

/**
 * The vehicle table, column by column: strings for ids, small-integer codes into a name list for
 * categorical columns (0 is "none"), and typed arrays (NaN for "none") for numbers. Columns clone
 * cheaply in one message and sort and filter without touching objects.
 */
export interface VehicleColumns {
  count: number;
  deviceId: string[];
  vehicleId: string[];
  providerId: string[];
  typeCode: Uint16Array;
  typeNames: string[];
  propulsionCode: Uint16Array;
  propulsionNames: string[];
  stateCode: Uint16Array;
  stateNames: string[];
  battery: Float64Array;
  /** Last event (or report) time, ms since the epoch. */
  lastEvent: Float64Array;
  lat: Float64Array;
  lng: Float64Array;
}
