import assert from 'node:assert/strict';
import { formatUtcHour, lastCompleteUtcHour, parseUtcHour, utcHoursBetween } from '../../src/core/mds/utcHour';

describe('UTC hours (YYYY-MM-DDTHH)', () => {
  it('parses real hours of every month, November included', () => {
    for (let month = 1; month <= 12; month++) {
      const text = `2025-${String(month).padStart(2, '0')}-15T07`;
      assert.equal(formatUtcHour(parseUtcHour(text)!), text);
    }
    assert.equal(parseUtcHour('2025-11-30T23'), Date.UTC(2025, 10, 30, 23));
  });

  it('refuses shapes and dates that are not real hours', () => {
    for (const bad of [
      '2025-11-05',
      '2025-11-05T7',
      '2025-11-05T24',
      '2025-13-01T00',
      '2025-00-01T00',
      '2025-02-30T00',
      '2025-11-05T07:00',
      ' 2025-11-05T07',
      '',
    ]) {
      assert.equal(parseUtcHour(bad), undefined, bad);
    }
  });

  it('names the last complete hour, across a day boundary', () => {
    assert.equal(lastCompleteUtcHour(Date.UTC(2025, 10, 5, 14, 59, 59)), '2025-11-05T13');
    assert.equal(lastCompleteUtcHour(Date.UTC(2025, 10, 5, 0, 0, 0)), '2025-11-04T23');
  });

  it('lists the hours of a range, both ends included', () => {
    assert.deepEqual(utcHoursBetween(Date.UTC(2025, 0, 31, 22), Date.UTC(2025, 1, 1, 1)), [
      '2025-01-31T22',
      '2025-01-31T23',
      '2025-02-01T00',
      '2025-02-01T01',
    ]);
    assert.deepEqual(utcHoursBetween(Date.UTC(2025, 0, 2), Date.UTC(2025, 0, 1)), []);
  });
});
