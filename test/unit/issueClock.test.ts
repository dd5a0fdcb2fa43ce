import { createHash } from 'node:crypto';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IssueClock, MemoryClockStore } from '../../src/core/clock/issueClock';
import { FileClockStore, keyIdDigest } from '../../src/core/clock/fileClockStore';
import { MobilityError } from '../../src/core/base/errors';

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

  it('keeps keys independent: a key waiting for the next second does not hold up another key', async () => {
    // The wall clock stands still, so a second token on key a can only wait (until cancelled).
    const frozen = Date.UTC(2026, 0, 1, 12, 0, 0, 500);
    const clock = new IssueClock({ now: () => frozen });
    const a = await clock.next('a');
    const ac = new AbortController();
    const secondA = clock.next('a', ac.signal);
    const b = await clock.next('b');
    assert.equal(b, a, 'key b gets the same second as key a, at once');
    assert.equal(b, Math.floor(frozen / 1000));
    ac.abort();
    await assert.rejects(secondA, (e: unknown) => e instanceof MobilityError && e.code === 'CANCELLED');
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
    await assert.rejects(
      clock.next('k'),
      (e: unknown) =>
        e instanceof MobilityError && e.code === 'CLOCK_BEHIND' && /correct the system clock/.test(e.message),
    );
  });

  it('can be cancelled while it waits for the next second, and hands out nothing', async () => {
    let nowMs = Date.UTC(2026, 0, 1, 12, 0, 0, 100);
    const store = new MemoryClockStore();
    const clock = new IssueClock({ store, now: () => nowMs });
    const first = await clock.next('k');
    const ac = new AbortController();
    // Same second: it must wait about 900 ms for the next one.
    const pending = clock.next('k', ac.signal);
    ac.abort();
    await assert.rejects(pending, (e: unknown) => e instanceof MobilityError && e.code === 'CANCELLED');
    assert.equal(store.get('k'), first, 'the cancelled call stored no time');
    nowMs += 1000;
    assert.equal(await clock.next('k'), first + 1, 'the next call gets the next second');
  });

  it('millisecond times are accepted by a verifier that compares iat with a whole-second now, at every moment of a second', async () => {
    // PyJWT 2.6: ImmatureSignatureError when iat > now, with now = int(time.time()) (utctimetuple drops the fraction).
    const acceptedByWholeSecondVerifier = (iat: number, verifierNowMs: number) =>
      !(iat > Math.floor(verifierNowMs / 1000));
    const second = Date.UTC(2026, 0, 1, 12, 0, 0);
    let nowMs = second;
    const clock = new IssueClock({ precision: 'milliseconds', now: () => nowMs });
    const times: number[] = [];
    for (const ms of [0, 1, 500, 998, 999, 1000, 1001, 1500, 1999]) {
      nowMs = second + ms;
      const iat = await clock.next('k');
      times.push(iat);
      assert.ok(
        acceptedByWholeSecondVerifier(iat, nowMs),
        `iat ${iat} issued at ${nowMs / 1000} is refused as not yet valid`,
      );
      assert.ok(iat <= nowMs / 1000, 'never in the future for an exact verifier either');
      assert.ok(nowMs / 1000 - iat <= 1, 'at most one second in the past');
      assert.equal(Math.round(iat * 1000) % 1000, ms % 1000, 'keeps the millisecond of the moment it was issued');
    }
    assert.ok(isStrictlyIncreasing(times), times.join(', '));
  });
});

describe('FileClockStore', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clock-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const stored = (file: string) => fs.readFileSync(file, 'utf8');

  it('persists the last iat of each key as decimal text in clock/iat-<32 hex of the SHA-256 of the kid>, readable only by the user', async () => {
    const store = new FileClockStore(path.join(dir, 'state'));
    const t = await new IssueClock({ store }).next('kid-1');
    const file = path.join(
      dir,
      'state',
      'clock',
      `iat-${createHash('sha256').update('kid-1').digest('hex').slice(0, 32)}`,
    );
    assert.equal(store.fileOf('kid-1'), file);
    assert.equal(stored(file), `${t}\n`);
    assert.deepEqual(fs.readdirSync(path.dirname(file)), [path.basename(file)], 'no temporary file or lock is left');
    assert.equal(fs.statSync(file).mode & 0o077, 0, 'not readable by others');
    assert.equal(fs.statSync(path.dirname(file)).mode & 0o077, 0, 'the folder is not open to others');
  });

  it('two stores on one folder (as two processes) never hand out the same time', async () => {
    const a = new IssueClock({ store: new FileClockStore(dir), precision: 'milliseconds' });
    const b = new IssueClock({ store: new FileClockStore(dir), precision: 'milliseconds' });
    const times = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).next('k')));
    assert.equal(new Set(times).size, times.length);
    assert.equal(new FileClockStore(dir).readMark('k'), Math.max(...times));
  });

  it('a whole-second mark written by another signer (a program) is respected by a millisecond clock, and the reverse', async () => {
    const store = new FileClockStore(dir);
    const ahead = Math.floor(Date.now() / 1000) + 1;
    fs.mkdirSync(path.join(dir, 'clock'), { recursive: true });
    fs.writeFileSync(store.fileOf('k'), `${ahead}\n`);
    const t = await new IssueClock({ store, precision: 'milliseconds' }).next('k');
    assert.ok(t > ahead, `${t} > ${ahead}`);
    const s = await new IssueClock({ store }).next('k');
    assert.ok(s > t && Number.isInteger(s), `${s} > ${t}`);
  });

  it('a clock file damaged from outside counts as the current time: the next time waits past it, reported once', async () => {
    const problems: string[] = [];
    const store = new FileClockStore(dir, { onProblem: (m) => problems.push(m) });
    const t1 = await new IssueClock({ store, precision: 'milliseconds' }).next('k');
    fs.writeFileSync(store.fileOf('k'), 'garbage');
    const before = Date.now() / 1000;
    const t2 = await new IssueClock({ store, precision: 'milliseconds' }).next('k');
    assert.ok(t2 > t1 && t2 > before - 1, `${t2} after ${t1} and after the moment the damage was read`);
    assert.equal(problems.length, 1, problems.join('\n'));
    assert.ok(problems[0].includes(store.fileOf('k')) && /holds no time/.test(problems[0]), problems[0]);
    assert.equal(stored(store.fileOf('k')), `${t2}\n`, 'the file was rewritten');
  });

  it('raiseMarks (the migration from globalState) keeps the larger time and never lowers one', async () => {
    const store = new FileClockStore(dir);
    const t = await new IssueClock({ store, precision: 'milliseconds' }).next('k');
    await store.raiseMarks({ k: t - 100, other: 1234.5 });
    assert.deepEqual(await store.readMarks(), { [keyIdDigest('k')]: t, [keyIdDigest('other')]: 1234.5 });
    await store.raiseMarks({ [keyIdDigest('k')]: t + 0.5 });
    assert.equal((await store.readMarks())[keyIdDigest('k')], t + 0.5);
    const next = await new IssueClock({ store, precision: 'milliseconds' }).next('k');
    assert.ok(next > t + 0.5);
  });

  it('forget removes an old mark but keeps one of the last seconds (another process may still sign with the key)', async () => {
    let nowMs = Date.now();
    const store = new FileClockStore(dir, { now: () => nowMs });
    const mark = await new IssueClock({ store }).next('k');
    const keptFor = await store.forget('k');
    assert.ok(keyIdDigest('k') in (await store.readMarks()), 'a fresh mark stays');
    assert.equal(keptFor, Math.ceil((mark + 3) * 1000 - nowMs), 'forget says when the kept mark may go');
    nowMs += keptFor - 1;
    assert.equal(await store.forget('k'), 1, 'a millisecond early it still stays');
    nowMs += 1;
    assert.equal(await store.forget('k'), 0);
    assert.deepEqual(await store.readMarks(), {});
    assert.equal(await store.forget('k'), 0, 'forgetting a key with no mark is done at once');
  });
});
