// The results table's layout and row cursor, apart from the DOM (issue #24): trip ids that differ only at
// the end stay distinguishable, headers fit their full names, the cursor keys move as in a list, and a
// row leads to its item in the page's JSON.
import assert from 'node:assert/strict';
import { tripTable } from '../../src/results/requests/resourceReaders';
import { visibleDataColumns } from '../../src/shared/dataTable';
import {
  columnChars,
  cursorAfterKey,
  itemPointer,
  middleEllipsis,
  rowPlace,
  widthAfterKey,
} from '../../src/shared/gridLayout';

function trip(i: number): Record<string, unknown> {
  return {
    trip_id: `b2a9c7d0-3f1e-4c5a-9e8d-0000000000${String(i).padStart(2, '0')}`,
    device_id: `5d1b9a4e-8c2f-4e7a-b1d3-${String(i).padStart(12, '0')}`,
    provider_id: 'p',
    start_time: 1764000000000 + i * 1000,
    end_time: 1764000600000 + i * 1000,
    duration: 600,
    distance: 1234,
  };
}

describe('results table layout (issue #24)', () => {
  const table = tripTable(Array.from({ length: 50 }, (_, i) => trip(i)));
  const columns = visibleDataColumns(table);

  it('starts id columns wide enough for a whole UUID, so trips that differ at the end do not look the same', () => {
    const tripId = columns.find((c) => c.id === 'tripId');
    assert.ok(tripId);
    assert.ok(columnChars(tripId, table.count) >= 36, `trip id column ${columnChars(tripId, table.count)} characters`);
  });

  it('starts every column wide enough for its full header name and the sort mark ("Duration", not "Dur…")', () => {
    for (const column of columns) {
      assert.ok(
        columnChars(column, table.count) >= column.label.length + 2,
        `${column.label}: ${columnChars(column, table.count)}`,
      );
    }
  });

  it('samples 100,000 rows instead of reading them all, and still finds the width', () => {
    const big = tripTable(Array.from({ length: 100_000 }, (_, i) => trip(i % 100)));
    const tripId = visibleDataColumns(big).find((c) => c.id === 'tripId');
    assert.ok(tripId);
    assert.equal(columnChars(tripId, big.count), 36);
  });

  it('shortens in the middle, keeping the distinguishing end', () => {
    const a = 'b2a9c7d0-3f1e-4c5a-9e8d-000000000041';
    const b = 'b2a9c7d0-3f1e-4c5a-9e8d-000000000042';
    assert.equal(middleEllipsis(a, 40), a, 'whole when it fits');
    const shortA = middleEllipsis(a, 19);
    const shortB = middleEllipsis(b, 19);
    assert.equal(shortA.length, 19);
    assert.notEqual(shortA, shortB, 'two ids that differ at the end stay different when shortened');
    assert.match(shortA, /^b2a9c7d0-…000000041$/);
    assert.equal(middleEllipsis(a, 1), '…');
    assert.equal(middleEllipsis('', 3), '');
  });

  it('moves the row cursor like a list: arrows, pages, Home and End, clamped at both ends', () => {
    assert.equal(cursorAfterKey({ key: 'ArrowDown' }, -1, 100, 20), 0, 'the first key press lands on the first row');
    assert.equal(cursorAfterKey({ key: 'ArrowDown' }, 5, 100, 20), 6);
    assert.equal(cursorAfterKey({ key: 'ArrowUp' }, 5, 100, 20), 4);
    assert.equal(cursorAfterKey({ key: 'ArrowUp' }, 0, 100, 20), 0);
    assert.equal(cursorAfterKey({ key: 'ArrowDown' }, 99, 100, 20), 99);
    assert.equal(cursorAfterKey({ key: 'PageDown' }, 0, 100, 20), 19);
    assert.equal(cursorAfterKey({ key: 'PageDown' }, 90, 100, 20), 99);
    assert.equal(cursorAfterKey({ key: 'PageUp' }, 30, 100, 20), 11);
    assert.equal(cursorAfterKey({ key: 'PageUp' }, 3, 100, 20), 0);
    assert.equal(cursorAfterKey({ key: 'Home' }, 50, 100, 20), 0);
    assert.equal(cursorAfterKey({ key: 'End' }, -1, 100, 20), 99);
    assert.equal(
      cursorAfterKey({ key: 'ArrowDown' }, 150, 100, 20),
      99,
      'a cursor past the rows (after filtering) comes back',
    );
    assert.equal(cursorAfterKey({ key: 'a' }, 5, 100, 20), undefined);
    assert.equal(cursorAfterKey({ key: 'ArrowDown' }, -1, 0, 20), undefined, 'no rows, no cursor');
  });

  it('resizes a column by keyboard in steps, never below its minimum', () => {
    assert.equal(widthAfterKey({ key: 'ArrowRight' }, 100, 40), 116);
    assert.equal(widthAfterKey({ key: 'ArrowRight', shiftKey: true }, 100, 40), 164);
    assert.equal(widthAfterKey({ key: 'ArrowLeft' }, 50, 40), 40);
    assert.equal(widthAfterKey({ key: 'Enter' }, 50, 40), undefined);
  });

  it("finds a row's item: its page and its place in that page's JSON", () => {
    assert.deepEqual(rowPlace([100, 100, 20], 0), { pageIndex: 0, itemIndex: 0 });
    assert.deepEqual(rowPlace([100, 100, 20], 150), { pageIndex: 1, itemIndex: 50 });
    assert.deepEqual(rowPlace([100, 0, 20], 105), { pageIndex: 2, itemIndex: 5 });
    assert.equal(rowPlace([100, 100], 200), undefined);
    assert.equal(itemPointer({ version: '2.0.0', trips: [{}, {}] }, 1), '/trips/1');
    assert.equal(itemPointer({ vehicles_status: [], links: {} }, 3), '/vehicles_status/3');
    assert.equal(itemPointer([{}, {}], 1), '/1');
    assert.equal(itemPointer({ 'a/b': [] }, 2), '/a~1b/2', 'a key with "/" is escaped');
    assert.equal(itemPointer({ a: 1 }, 0), '', 'no list: the whole body');
  });
});
