import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { validateMdsResponse } from '../src/core/conformance/validateMds';
import type { ReportedFigure } from './figures';
import { round3 } from './figures';
import { alternate, median, medianRatio, nowMs } from './stats';

/** The sandbox's largest page. */
const PAGE_ITEMS = 1000;
const ROUNDS = 20;
const WARMUP = 5;

function uuid(i: number, salt: number): string {
  return `${salt.toString(16).padStart(8, '0')}-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
}

const STATES: [string, string[]][] = [
  ['available', ['trip_end']],
  ['on_trip', ['trip_start']],
  ['non_operational', ['battery_low']],
  ['reserved', ['reservation_start']],
  ['removed', ['rebalance_pick_up']],
];

/** A conforming micromobility /vehicles/status page (the valid path is the one every good answer takes). */
function statusPage(items: number): string {
  const provider = '3c9604d6-b5ee-11e8-96f8-529269fb1459';
  const now = Date.now();
  const vehiclesStatus = Array.from({ length: items }, (_, i) => {
    const [state, types] = STATES[i % STATES.length];
    const onTrip = types[0].startsWith('trip_');
    const trip = onTrip ? [uuid(i, 3)] : undefined;
    const location = { lat: 47.3 + (i % 100) / 1000, lng: 8.5 + (i % 97) / 1000 };
    return {
      device_id: uuid(i, 1),
      provider_id: provider,
      last_event: {
        device_id: uuid(i, 1),
        provider_id: provider,
        event_id: uuid(i, 2),
        vehicle_state: state,
        event_types: types,
        timestamp: now - i,
        location,
        battery_percent: i % 101,
        ...(trip ? { trip_ids: trip } : {}),
      },
      last_telemetry: {
        device_id: uuid(i, 1),
        provider_id: provider,
        telemetry_id: uuid(i, 4),
        timestamp: now - i,
        trip_ids: state === 'on_trip' ? trip : null,
        journey_id: null,
        location,
        battery_percent: i % 101,
      },
    };
  });
  return JSON.stringify({
    version: '2.0.2',
    last_updated: now,
    ttl: 30_000,
    vehicles_status: vehiclesStatus,
    links: { first: null, last: null, prev: null, next: null },
  });
}

/**
 * Receiving and parsing one page of 1000 /vehicles/status items over loopback HTTP vs validating it
 * (`validateMdsResponse`, official schemas corrected, schema-bug sample included). Target: validation adds at most
 * 50 % to receiving and parsing the page.
 */
export async function validationFigure(): Promise<ReportedFigure> {
  const text = statusPage(PAGE_ITEMS);
  const server = createServer((_req, res) => {
    res.writeHead(200, {
      'Content-Type': 'application/vnd.mds+json;version=2.0',
      'Content-Length': Buffer.byteLength(text),
    });
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/vehicles/status`;
  try {
    let body: unknown;
    const receive = async () => {
      const t0 = nowMs();
      const res = await fetch(url);
      body = JSON.parse(await res.text());
      return nowMs() - t0;
    };
    let conforms = true;
    const validate = async () => {
      await receive();
      const t0 = nowMs();
      conforms = validateMdsResponse('vehicles_status', body, {
        contentType: 'application/vnd.mds+json;version=2.0',
      }).conforms;
      return nowMs() - t0;
    };
    // Compile once outside the rounds: compilation is a one-time cost per session, not per page.
    const compileStart = nowMs();
    await receive();
    validateMdsResponse('vehicles_status', body);
    const firstMs = nowMs() - compileStart;
    const { a: validation, b: receiving } = await alternate(ROUNDS, WARMUP, validate, receive);
    if (!conforms) throw new Error('The benchmark page does not conform: fix bench/validate.ts.');
    const ratio = medianRatio(validation, receiving);
    return {
      name: `validate a page of ${PAGE_ITEMS} /vehicles/status items vs receive+parse it`,
      value: ratio,
      unit: 'x receive+parse',
      target: '<= 0.5 x receive+parse',
      met: ratio <= 0.5,
      raw: `page ${round3(Buffer.byteLength(text) / 1024)} KB; receive+parse median ${round3(median(receiving))} ms, validate median ${round3(median(validation))} ms (${round3((median(validation) * 1000) / PAGE_ITEMS)} µs/item); first page incl. compiling ${round3(firstMs)} ms`,
    };
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
