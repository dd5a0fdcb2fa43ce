import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IssueClock, MemoryClockStore } from '../../src/core/issueClock';
import { FileClockStore } from '../../src/core/fileClockStore';
import { MobilityError } from '../../src/core/errors';

const isStrictlyIncreasing = (xs: number[]) => xs.every((x, i) => i === 0 || x > xs[i - 1]);

describe('IssueClock (spec 5.1 rule 6: strictly later iat per key)', () => {
  it('gives whole seconds by default and waits for the next second instead of forging a future time', async () => {
    const clock = new IssueClock();
    const before = Date.now() / 1000;
    const times = await Promise.all([clock.next('k'), clock.next('k'), clock.next('k')]);
    const after = Date.now() / 1000;
    assert.ok(times.every(Number.isInteger), `whole seconds: ${times.join(', ')}`);
    assert.ok(isStrictlyIncreasing(times), `strictly increasing: ${times.join(', ')}`);
    assert.ok(times[2] <= after, 'never later than the wall clock when issued');
    assert.ok(times[0] >= Math.floor(before));
  });

  it('with millisecond precision hands out 200 concurrent distinct, increasing, fractional times', async () => {
    const clock = new IssueClock({ precision: 'milliseconds' });
    const times = await Promise.all(Array.from({ length: 200 }, () => clock.next('k')));
    assert.ok(isStrictlyIncreasing(times));
    assert.equal(new Set(times).size, 200);
    for (const t of times) assert.equal(Math.round(t * 1000) / 1000, t, 'at most three decimals');
  });

  it('keeps keys independent', async () => {
    const clock = new IssueClock();
    const [a, b] = await Promise.all([clock.next('a'), clock.next('b')]);
    assert.ok(Math.abs(a - b) <= 1, 'the second key does not wait for the first');
  });

  it('continues after the mark a previous run persisted (restart)', async () => {
    const store = new MemoryClockStore();
    const first = await new IssueClock({ store, precision: 'milliseconds' }).next('k');
    const second = await new IssueClock({ store, precision: 'milliseconds' }).next('k');
    assert.ok(second > first);
    // A mark slightly in the future (another machine, or a clock that was ahead): wait, do not go below it.
    const ahead = Date.now() / 1000 + 0.3;
    store.update('k', () => ({ issue: ahead }));
    const third = await new IssueClock({ store, precision: 'milliseconds' }).next('k');
    assert.ok(third > ahead);
  });

  it('stays strictly increasing when the wall clock steps back a little', async () => {
    let offset = 0;
    const clock = new IssueClock({ precision: 'milliseconds', now: () => Date.now() - offset });
    const first = await clock.next('k');
    offset = 400;
    const second = await clock.next('k');
    assert.ok(second > first, `${second} > ${first}`);
  });

  it('refuses with CLOCK_BEHIND, saying what to do, when the clock stepped back an hour', async () => {
    let offset = 0;
    const clock = new IssueClock({ now: () => Date.now() - offset });
    await clock.next('k');
    offset = 3600_000;
    await assert.rejects(clock.next('k'), (e: unknown) => e instanceof MobilityError && e.code === 'CLOCK_BEHIND' && /correct the system clock/.test(e.message));
  });

  it('can be cancelled while it waits', async () => {
    const clock = new IssueClock();
    await clock.next('k');
    const ac = new AbortController();
    const pending = clock.next('k', ac.signal);
    ac.abort();
    // Whether it was still waiting or already done, an abort must not hang and must not forge a time.
    await pending.then(
      (t) => assert.ok(Number.isInteger(t)),
      (e: unknown) => assert.ok(e instanceof MobilityError && e.code === 'HTTP_ABORTED'),
    );
  });
});

describe('FileClockStore', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clock-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('persists a number per key id and nothing else', async () => {
    const file = path.join(dir, 'state', 'clock.json');
    const t = await new IssueClock({ store: new FileClockStore(file) }).next('kid-1');
    const state = JSON.parse(fs.readFileSync(file, 'utf8')) as { lastIssuedAt: Record<string, number> };
    assert.deepEqual(state.lastIssuedAt, { 'kid-1': t });
    assert.equal(fs.statSync(file).mode & 0o077, 0, 'not readable by others');
  });

  it('two writers on one file (as two processes) never hand out the same time', async () => {
    const file = path.join(dir, 'clock.json');
    const a = new IssueClock({ store: new FileClockStore(file), precision: 'milliseconds' });
    const b = new IssueClock({ store: new FileClockStore(file), precision: 'milliseconds' });
    const times = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).next('k')));
    assert.equal(new Set(times).size, times.length);
    const last = (JSON.parse(fs.readFileSync(file, 'utf8')) as { lastIssuedAt: Record<string, number> }).lastIssuedAt.k;
    assert.equal(last, Math.max(...times));
  });

  it('refuses a damaged state file and leaves it as it was', async () => {
    const file = path.join(dir, 'clock.json');
    fs.writeFileSync(file, '{"lastIssuedAt": {"k": 12');
    await assert.rejects(new IssueClock({ store: new FileClockStore(file) }).next('k'), (e: unknown) => e instanceof MobilityError && e.code === 'CLOCK_STORE_FAILED' && e.message.includes(file));
    assert.equal(fs.readFileSync(file, 'utf8'), '{"lastIssuedAt": {"k": 12');
  });

  it('ignores prototype keys in the file', async () => {
    const file = path.join(dir, 'clock.json');
    fs.writeFileSync(file, '{"version":1,"lastIssuedAt":{"__proto__":{"polluted":1},"k":5}}');
    const t = await new IssueClock({ store: new FileClockStore(file) }).next('constructor');
    assert.ok(t > 5);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});
