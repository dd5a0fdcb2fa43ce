import assert from 'node:assert/strict';
import type { Environment } from '../../src/core/environment/environment';
import { requestUrl } from '../../src/core/environment/apiRequest';
import { MobilityError } from '../../src/core/base/errors';
import { MAAS_CATALOGUE, MDS_CATALOGUE } from '../../src/core/mds/mdsCatalogue';
import { MDS_ENDPOINT_IDS, MDS_HOUR_ENDPOINTS } from '../../src/core/mds/mdsEndpoints';
import type { ParameterValues } from '../../src/core/mds/mdsRequests';
import {
  buildEndpointRequest,
  endpointDefaults,
  findEndpoint,
  freeRequest,
  matchEndpoint,
} from '../../src/core/mds/mdsRequests';
import { checkParameterValue } from '../../src/core/mds/parameterFormats';

const mds: Environment = {
  id: 'mds',
  name: 'MDS staging',
  api: 'mds',
  stage: 'staging',
  baseUrl: 'https://mds.example.test/provider/',
};
const maas: Environment = {
  id: 'maas',
  name: 'MaaS staging',
  api: 'maas',
  stage: 'staging',
  baseUrl: 'https://maas.example.test',
};
const DEVICE = '3c9604d6-b5ee-11e8-96f8-529269fb1459';
// 2024-11-05T14:25:00Z: November on purpose, the month the official hour pattern refuses.
const NOW = Date.UTC(2024, 10, 5, 14, 25);

const fails = (code: string, message?: RegExp) => (e: unknown) => {
  assert.ok(e instanceof MobilityError, `expected a MobilityError, got ${String(e)}`);
  assert.equal(e.code, code, e.message);
  if (message) assert.match(e.message, message);
  return true;
};

function urlOf(env: Environment, id: string, values: ParameterValues = {}): string {
  const r = buildEndpointRequest(env.api, id, values, { nowMs: NOW });
  return requestUrl(env, r.path, r.query);
}

describe('MDS 2.0 Provider catalogue', () => {
  it('has exactly one entry per endpoint id, in the order of MDS_ENDPOINT_IDS, hour endpoints marked', () => {
    assert.deepEqual(
      MDS_CATALOGUE.map((e) => e.id),
      [...MDS_ENDPOINT_IDS],
    );
    assert.deepEqual(
      MDS_CATALOGUE.filter((e) => e.hourEndpoint).map((e) => e.id),
      [...MDS_HOUR_ENDPOINTS],
    );
    for (const e of MDS_CATALOGUE) {
      for (const p of e.parameters) {
        assert.ok(p.formatDescription.length > 10 && p.description.length > 10, `${e.id}.${p.name} is described`);
        assert.ok(
          e.pathTemplate.includes(`{${p.name}}`) === (p.in === 'path'),
          `${e.id}.${p.name} sits where the template says`,
        );
      }
    }
    // The official text: /trips and /events/historical must not paginate; the vehicle lists and recent events may.
    assert.deepEqual(
      MDS_CATALOGUE.filter((e) => e.paginates).map((e) => e.id),
      ['vehicles', 'vehicles_status', 'events_recent'],
    );
    assert.equal(findEndpoint('mds', 'reports').body, 'csv');
    assert.deepEqual(
      MAAS_CATALOGUE.map((e) => e.pathTemplate),
      ['/v1alpha2/vehicles'],
    );
  });

  it('builds the URL of every endpoint under the base URL', () => {
    const expected: Record<(typeof MDS_ENDPOINT_IDS)[number], [ParameterValues, string]> = {
      vehicles: [{}, '/provider/vehicles'],
      vehicle: [{ device_id: DEVICE }, `/provider/vehicles/${DEVICE}`],
      vehicles_status: [{}, '/provider/vehicles/status'],
      vehicle_status: [{ device_id: DEVICE }, `/provider/vehicles/status/${DEVICE}`],
      trips: [{ end_time: '2024-11-04T07' }, '/provider/trips?end_time=2024-11-04T07'],
      telemetry: [{ telemetry_time: '2024-11-04T07' }, '/provider/telemetry?telemetry_time=2024-11-04T07'],
      events_historical: [{ event_time: '2024-11-04T07' }, '/provider/events/historical?event_time=2024-11-04T07'],
      events_recent: [
        { start_time: NOW - 7_200_000, end_time: String(NOW - 3_600_000) },
        `/provider/events/recent?start_time=${NOW - 7_200_000}&end_time=${NOW - 3_600_000}`,
      ],
      stops: [{}, '/provider/stops'],
      stop: [{ stop_id: DEVICE }, `/provider/stops/${DEVICE}`],
      reports: [{ month: '2024-09' }, '/provider/reports/2024-09.csv'],
    };
    for (const id of MDS_ENDPOINT_IDS) {
      const [values, path] = expected[id];
      assert.equal(urlOf(mds, id, values), `https://mds.example.test${path}`, id);
    }
    assert.equal(urlOf(maas, 'vehicles'), 'https://maas.example.test/v1alpha2/vehicles');
    assert.equal(
      buildEndpointRequest('mds', 'reports', { month: '2024-09' }).headers?.Accept,
      'text/vnd.mds+csv;version=2.0',
    );
    assert.equal(buildEndpointRequest('mds', 'trips', { end_time: '2024-11-04T07' }).itemsKey, 'trips');
  });

  it('fills defaults from an injected now: the last complete hour, the last hour for recent events, the last complete month', () => {
    assert.deepEqual(endpointDefaults(findEndpoint('mds', 'trips'), NOW), { end_time: '2024-11-05T13' });
    // Just after midnight on New Year: the last complete hour and month are in the year before.
    const newYear = Date.UTC(2025, 0, 1, 0, 0, 5);
    assert.deepEqual(endpointDefaults(findEndpoint('mds', 'events_historical'), newYear), {
      event_time: '2024-12-31T23',
    });
    assert.deepEqual(endpointDefaults(findEndpoint('mds', 'reports'), newYear), { month: '2024-12' });
    assert.deepEqual(endpointDefaults(findEndpoint('mds', 'events_recent'), NOW), {
      start_time: String(NOW - 3_600_000),
      end_time: String(NOW),
    });
    const built = buildEndpointRequest('mds', 'telemetry', {}, { nowMs: NOW });
    assert.deepEqual(built.defaulted, ['telemetry_time']);
    assert.equal(
      requestUrl(mds, built.path, built.query),
      'https://mds.example.test/provider/telemetry?telemetry_time=2024-11-05T13',
    );
    assert.throws(
      () => buildEndpointRequest('mds', 'trips', {}, { nowMs: NOW, useDefaults: false }),
      fails('PARAMETER_MISSING', /needs end_time \(YYYY-MM-DDTHH \(UTC\)/),
    );
    assert.throws(
      () => buildEndpointRequest('mds', 'vehicle', {}),
      fails('PARAMETER_MISSING', /\/vehicles\/\{device_id\} \(vehicle\) needs device_id/),
    );
  });

  it('refuses a malformed hour, showing the value given and the format expected', () => {
    assert.throws(
      () => buildEndpointRequest('mds', 'trips', { end_time: '2025-11-5T7' }),
      (e: unknown) =>
        e instanceof MobilityError &&
        e.code === 'PARAMETER_INVALID' &&
        e.message === 'end_time "2025-11-5T7" is not a UTC hour: use YYYY-MM-DDTHH (UTC), for example 2024-11-05T14.',
    );
    for (const bad of ['2024-02-30T10', '2024-11-05T24', '2024-11-05 14', '2024-11-05T14:00', '1969-12-31T23']) {
      assert.throws(
        () => buildEndpointRequest('mds', 'events_historical', { event_time: bad }),
        fails('PARAMETER_INVALID', /event_time ".*"/),
        bad,
      );
    }
    // November hours pass (the official iso-dayhour pattern refuses them: a known problem of mds-openapi).
    assert.equal(
      buildEndpointRequest('mds', 'trips', { end_time: ' 2024-11-30T23 ' }).values.end_time,
      '2024-11-30T23',
    );
  });

  it('refuses timestamps that are not epoch milliseconds, and says when they look like seconds', () => {
    const at = (start_time: string | number) => () =>
      buildEndpointRequest('mds', 'events_recent', { start_time, end_time: NOW }, { nowMs: NOW });
    assert.throws(
      at('1730815200'),
      fails(
        'PARAMETER_INVALID',
        /start_time "1730815200" looks like seconds, not milliseconds \(multiply by 1000\): use integer milliseconds/,
      ),
    );
    assert.throws(at('2024-11-05T14'), fails('PARAMETER_INVALID', /start_time "2024-11-05T14" is not a timestamp/));
    assert.throws(at('1730815200000.5'), fails('PARAMETER_INVALID', /not a whole number/));
    assert.throws(at(-1), fails('PARAMETER_INVALID', /"-1" is not a timestamp/));
  });

  it('keeps /events/recent within two weeks and end_time after start_time', () => {
    const twoWeeks = 14 * 24 * 3_600_000;
    const recent = (start: number, end: number) => () =>
      buildEndpointRequest('mds', 'events_recent', { start_time: start, end_time: end }, { nowMs: NOW });
    assert.doesNotThrow(recent(NOW - twoWeeks, NOW));
    assert.throws(
      recent(NOW - twoWeeks - 1, NOW),
      fails(
        'PARAMETER_INVALID',
        /start_time \d+ \(2024-10-22T14:24:59\.999Z\) is more than two weeks before now.*\/events\/historical/,
      ),
    );
    assert.throws(
      recent(NOW - 1000, NOW - 1000),
      fails('PARAMETER_INVALID', /end_time \d+ .* is not after start_time/),
    );
    // Both wrong at once: one error that lists both problems.
    assert.throws(
      recent(NOW - twoWeeks - 5, NOW - twoWeeks - 10),
      (e: unknown) =>
        fails('PARAMETER_INVALID')(e) &&
        /two weeks/.test((e as Error).message) &&
        /not after/.test((e as Error).message),
    );
  });

  it('checks UUIDs and months, normalising what RFC 4122 and report file names allow', () => {
    assert.equal(
      buildEndpointRequest('mds', 'vehicle', { device_id: DEVICE.toUpperCase() }).path,
      `/vehicles/${DEVICE}`,
    );
    assert.throws(
      () => buildEndpointRequest('mds', 'vehicle', { device_id: '../trips' }),
      fails('PARAMETER_INVALID', /device_id "\.\.\/trips" is not a UUID: use 8-4-4-4-12 hexadecimal digits/),
    );
    assert.throws(
      () => buildEndpointRequest('mds', 'stop', { stop_id: 'abc' }),
      fails('PARAMETER_INVALID', /stop_id "abc"/),
    );
    assert.equal(buildEndpointRequest('mds', 'reports', { month: '2024-09.csv' }).path, '/reports/2024-09.csv');
    assert.throws(
      () => buildEndpointRequest('mds', 'reports', { month: '2024-13' }),
      fails('PARAMETER_INVALID', /month "2024-13" has no month 13: use YYYY-MM \(UTC\)/),
    );
    assert.throws(
      () => buildEndpointRequest('mds', 'reports', { month: '2024/09' }),
      fails('PARAMETER_INVALID', /is not a month/),
    );
    assert.deepEqual(checkParameterValue('x', 'utc_hour', '\u001b[31m'), {
      ok: false,
      problem: 'x "\\u001b[31m" is not a UTC hour: use YYYY-MM-DDTHH (UTC), for example 2024-11-05T14',
    });
  });

  it('refuses unknown endpoints and parameters, and extra query that repeats a checked parameter', () => {
    assert.throws(
      () => findEndpoint('mds', 'trip'),
      fails(
        'ENDPOINT_UNKNOWN',
        /"trip" is not an endpoint of the MDS Provider API catalogue; it has vehicles, vehicle,/,
      ),
    );
    assert.throws(() => findEndpoint('maas', 'trips'), fails('ENDPOINT_UNKNOWN', /MaaS API/));
    assert.throws(
      () => buildEndpointRequest('mds', 'trips', { endtime: '2024-11-05T10' }),
      fails('PARAMETER_UNKNOWN', /has no parameter "endtime": it takes end_time/),
    );
    assert.throws(
      () => buildEndpointRequest('mds', 'trips', { end_time: '2024-11-05T10' }, { extraQuery: { end_time: 'x' } }),
      fails('PARAMETER_INVALID', /end_time is a parameter of \/trips/),
    );
    const extra = buildEndpointRequest('mds', 'vehicles', {}, { extraQuery: { 'page[size]': 50, flag: [1, 2] } });
    assert.equal(
      requestUrl(mds, extra.path, extra.query),
      'https://mds.example.test/provider/vehicles?page%5Bsize%5D=50&flag=1&flag=2',
    );
  });

  it('matches free paths to catalogue endpoints, the literal path first', () => {
    assert.equal(matchEndpoint('mds', '/vehicles/status')?.id, 'vehicles_status');
    assert.equal(matchEndpoint('mds', `vehicles/status/${DEVICE}?x=1`)?.id, 'vehicle_status');
    assert.equal(matchEndpoint('mds', '/reports/2024-10.csv')?.id, 'reports');
    assert.equal(matchEndpoint('mds', '/geographies'), undefined);
    assert.equal(matchEndpoint('maas', '/v1alpha2/vehicles')?.id, 'vehicles');
    const free = freeRequest('mds', '/events/recent?start_time=1', { end_time: 2 });
    assert.deepEqual({ id: free.endpointId, key: free.itemsKey }, { id: 'events_recent', key: 'events' });
    assert.equal(
      requestUrl(mds, free.path, free.query),
      'https://mds.example.test/provider/events/recent?start_time=1&end_time=2',
    );
    // A free request is not checked: it may test how a server answers a bad hour.
    assert.equal(
      requestUrl(mds, freeRequest('mds', 'trips', { end_time: '2025-11-5T7' }).path, { end_time: '2025-11-5T7' }),
      'https://mds.example.test/provider/trips?end_time=2025-11-5T7',
    );
    assert.equal(freeRequest('maas', '/v2/anything').itemsKey, undefined);
  });
});

describe('requestUrl: any path under the base URL, nothing outside', () => {
  it('joins paths and encodes queries from a record or URLSearchParams', () => {
    assert.equal(requestUrl(mds, 'vehicles'), 'https://mds.example.test/provider/vehicles');
    assert.equal(requestUrl(mds, ''), 'https://mds.example.test/provider');
    assert.equal(requestUrl(mds, '/a b/ü'), 'https://mds.example.test/provider/a%20b/%C3%BC');
    assert.equal(
      requestUrl(mds, '/x?keep=1', { q: 'a b&c=d', n: 5, yes: true, none: undefined, nil: null }),
      'https://mds.example.test/provider/x?keep=1&q=a+b%26c%3Dd&n=5&yes=true',
    );
    assert.equal(
      requestUrl(
        mds,
        '/x',
        new URLSearchParams([
          ['t', '2024-11-05T14'],
          ['t', 'é'],
        ]),
      ),
      'https://mds.example.test/provider/x?t=2024-11-05T14&t=%C3%A9',
    );
    assert.equal(
      requestUrl(mds, 'https://mds.example.test/provider/vehicles?page=2'),
      'https://mds.example.test/provider/vehicles?page=2',
    );
  });

  it('refuses every way out of the base URL with PATH_INVALID', () => {
    const escapes = [
      '../admin',
      '/vehicles/../../admin',
      '/%2e%2e/admin',
      '/%2E./x',
      '/./x',
      '..',
      '//evil.example.test/x',
      '\\\\evil.example.test\\x',
      '/vehicles\\..\\admin',
      'https://evil.example.test/provider/vehicles',
      'http://mds.example.test/provider/vehicles',
      'https://mds.example.test/other',
      'https://mds.example.test/providerX',
      'javascript:alert(1)',
      '/vehicles#frag',
      '/vehicles\n/admin',
      '/x\u0000',
    ];
    for (const path of escapes) assert.throws(() => requestUrl(mds, path), fails('PATH_INVALID'), path);
    assert.throws(
      () => requestUrl(mds, 'https://evil.example.test/x'),
      fails('PATH_INVALID', /another origin.*the token is not sent there/),
    );
    assert.throws(() => freeRequest('mds', '/a/../../b'), fails('PATH_INVALID', /"\." or "\.\." segment/));
    // A base without a path: every path on its origin is under it.
    assert.equal(requestUrl(maas, '/v1alpha2/vehicles'), 'https://maas.example.test/v1alpha2/vehicles');
    assert.throws(() => requestUrl(maas, '/v1alpha2/../x'), fails('PATH_INVALID'));
  });
});
