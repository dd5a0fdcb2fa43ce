import assert from 'node:assert/strict';
import { waitFor, waitUntil } from './support/waitUntil';

/** The tests' one condition wait: it must return as soon as the condition holds, and fail saying what it saw. */
describe('waitUntil (the test helper)', () => {
  it('returns the first value the condition accepts, reading again until then', async () => {
    let reads = 0;
    const value = await waitUntil(
      'the third read',
      () => ++reads,
      (n) => n >= 3,
      { intervalMs: 1 },
    );
    assert.equal(value, 3);
    assert.equal(reads, 3);
  });

  it('fails after the timeout, naming what it waited for and the last value read', async () => {
    await assert.rejects(
      waitUntil(
        'the door to open',
        () => 'closed',
        (s) => s === 'open',
        { timeoutMs: 30, intervalMs: 5 },
      ),
      /Waited 30 ms for the door to open; last seen "closed"\./,
    );
  });

  it('treats a read that throws as not yet, and reports the error if time runs out', async () => {
    let reads = 0;
    const value = await waitFor(
      'a read that stops throwing',
      () => {
        if (++reads < 3) throw new Error('not yet');
        return true;
      },
      { intervalMs: 1 },
    ).then(() => reads);
    assert.equal(value, 3);
    await assert.rejects(
      waitFor(
        'a read that always throws',
        () => {
          throw new Error('broken');
        },
        { timeoutMs: 20, intervalMs: 5 },
      ),
      /last seen an error: broken/,
    );
  });
});
