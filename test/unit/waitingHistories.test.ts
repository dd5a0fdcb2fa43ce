// Issue 37: a Testing-view run whose environment has no results panel open opens none (a new panel would come to the
// front over the request file); its answers wait, in the history the panel keeps, and the panel shows them when it opens.
import assert from 'node:assert/strict';
import type { HistoryEntryView } from '../../src/shared/historyViews';
import { HISTORY_KEPT_IN_FULL } from '../../src/shared/historyViews';
import { WaitingHistories } from '../../src/results/history/waitingHistories';

const entry = (id: string): HistoryEntryView => ({
  id,
  kind: 'listing',
  title: id,
  method: 'GET',
  path: `/${id}`,
  environmentName: 'E',
  createdAt: 0,
  line: id,
  kept: true,
});

describe('answers held for a results panel that is not open', () => {
  it('keeps every answer in order, the last five in full, and hands them to the panel when it opens', () => {
    const waiting = new WaitingHistories<{ answer: string }>();
    const answers = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7'];
    for (const id of answers) waiting.hold('env:staging', entry(id), { answer: id });
    waiting.hold('env:production', entry('p1'), { answer: 'p1' });

    const staging = waiting.of('env:staging');
    assert.deepEqual(
      staging?.list().map((e) => [e.id, e.kept]),
      [...answers].reverse().map((id, i) => [id, i < HISTORY_KEPT_IN_FULL]),
      'newest first; the last five in full, the older two as summaries',
    );
    assert.deepEqual(waiting.newest('env:staging'), { answer: 'a7' });
    assert.deepEqual(staging?.held('a3'), { answer: 'a3' }, 'Open Result can show an answer kept in full');
    assert.equal(staging?.held('a2'), undefined);

    // The panel opens: it takes the history, and what it shows next comes on top of the answers that waited.
    const opened = waiting.take('env:staging');
    assert.equal(opened, staging);
    opened?.add(entry('sent'), { answer: 'sent' });
    assert.deepEqual(
      opened?.list().map((e) => e.id),
      ['sent', 'a7', 'a6', 'a5', 'a4', 'a3', 'a2', 'a1'],
    );
    assert.equal(waiting.of('env:staging'), undefined, 'nothing waits any more: the open panel holds it');
    assert.equal(waiting.newest('env:staging'), undefined);
    assert.equal(waiting.take('env:staging'), undefined);

    // Another environment's answers wait on for their own panel.
    assert.deepEqual(waiting.newest('env:production'), { answer: 'p1' });
    assert.deepEqual(waiting.clear(), [{ answer: 'p1' }]);
    assert.equal(waiting.of('env:production'), undefined);
  });
});
