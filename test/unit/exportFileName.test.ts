// An export's default file name says what the data is (issue #24): the endpoint and the window the
// request asked for, not the time the user pressed Save.
import assert from 'node:assert/strict';
import { dataWindowOf, exportFileName } from '../../src/results/history/exportFile';

describe('export file names (issue #24)', () => {
  const savedLater = Date.parse('2026-11-25T08:41:07Z');

  it('names an hour of trips, telemetry or historical events by that hour', () => {
    assert.equal(
      exportFileName(
        {
          resource: 'trips',
          url: 'https://mds.example.test/provider/trips?end_time=2026-11-24T13',
          fetchedAt: savedLater,
        },
        'csv',
      ),
      'trips_2026-11-24T13.csv',
    );
    assert.equal(
      exportFileName(
        {
          resource: 'telemetry',
          url: 'http://127.0.0.1:4100/mds-staging/telemetry?telemetry_time=2026-11-24T02',
          fetchedAt: savedLater,
        },
        'geojson',
      ),
      'telemetry_2026-11-24T02.geojson',
    );
    assert.equal(
      exportFileName(
        { resource: 'events', url: '/events/historical?event_time=2026-11-23T23', fetchedAt: savedLater },
        'json',
      ),
      'events_2026-11-23T23.json',
    );
  });

  it('names a harvested hour by the hour shown', () => {
    assert.equal(
      exportFileName({ resource: 'trips', window: '2026-11-24T13', fetchedAt: savedLater }, 'csv'),
      'trips_2026-11-24T13.csv',
    );
  });

  it('names a range of recent events by its start and end, and a snapshot by the time it was fetched', () => {
    const start = Date.parse('2026-11-24T13:00:00Z');
    assert.equal(
      dataWindowOf(`/events/recent?start_time=${start}&end_time=${start + 3_600_000}`),
      '2026-11-24T13-00_2026-11-24T14-00',
    );
    assert.equal(
      exportFileName(
        {
          resource: 'vehicles_status',
          url: 'https://mds.example.test/vehicles/status',
          fetchedAt: Date.parse('2026-11-24T13:05:59Z'),
        },
        'csv',
      ),
      'vehicles_status_2026-11-24T13-05.csv',
    );
  });

  it('keeps only safe characters, whatever the URL holds', () => {
    assert.equal(
      exportFileName({ resource: 'report', window: '../../etc/passwd', fetchedAt: savedLater }, 'csv'),
      'report_..-..-etc-passwd.csv',
    );
    assert.equal(dataWindowOf('/trips?end_time=2026-11-24T13:00:00Z'), undefined, 'not an hour: no window from it');
  });
});
