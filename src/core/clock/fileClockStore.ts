import * as l10n from '@vscode/l10n';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { ClockDecision, ClockStore } from './issueClock';
import { FIX_STATE_DIR, reasonOf } from './crossProcessLock';
import { KeyLocks } from './keyLock';
import { keyIdHex } from './stateDir';
import { MobilityError } from '../base';

export { defaultStateDir, keyIdDigest } from './stateDir';

/** Marks younger than this are kept by `forget`: a time issued this recently could be issued again. */
const FORGET_AFTER_SECONDS = 3;

/** What a clock file holds: the last iat of its key as a decimal NumericDate, maybe fractional (`1767225599.123`). */
const MARK = /^\d+(\.\d+)?$/;

const hexOf = (name: string) => (name.startsWith('sha256:') ? name.slice('sha256:'.length) : keyIdHex(name));

export interface FileClockStoreOptions {
  /** Told once per problem (a damaged clock file, a lock lost); never holds a secret. */
  onProblem?: (message: string) => void;
  /** Give up after waiting this long for another signer's lock; default 120 s (a holder keeps it until its answer). */
  lockWaitMs?: number;
  /** Wall clock in ms, for `forget` and damaged files; injectable for tests. */
  now?: () => number;
  /** The key locks shared with the request queue of the same state folder. */
  locks?: KeyLocks;
}

/**
 * The per-key issue clock's marks, one file per key: `<stateDir>/clock/iat-<32 hex of the SHA-256 of the kid>`,
 * holding the last iat as decimal text, written to a temporary file and renamed over it (so a reader sees the
 * old mark or the new one, never half of one). Every signer of this product (each VS Code window, the CLI) and
 * every program Copy as Code writes reads and writes it under the key's one lock ({@link KeyLocks}); the
 * protocol is stated in docs/copy-as-code.md.
 *
 * A file that holds anything else (damaged from outside) counts as a mark at the current time: a mark is never
 * ahead of the wall clock when written, so the next time is later than any it can have held.
 */
export class FileClockStore implements ClockStore {
  readonly locks: KeyLocks;
  private readonly reported = new Set<string>();
  private readonly now: () => number;
  /** How many damaged files were read: a repair is written after each. */
  private damaged = 0;

  constructor(
    readonly stateDir: string,
    private readonly options: FileClockStoreOptions = {},
  ) {
    this.locks = options.locks ?? new KeyLocks(stateDir, options.onProblem);
    this.now = options.now ?? Date.now;
  }

  /** The clock file of a key. */
  fileOf(keyId: string): string {
    return this.locks.fileOf(keyIdHex(keyId));
  }

  async update(keyId: string, decide: (last: number | undefined) => ClockDecision): Promise<ClockDecision> {
    return this.withKey<ClockDecision>(keyIdHex(keyId), (mark) => {
      const decision = decide(mark);
      return 'issue' in decision ? { result: decision, write: decision.issue } : { result: decision };
    });
  }

  /** Raises marks to at least the given ones, by key id or by digest as `readMarks` gives them; never lowers one. */
  async raiseMarks(marks: Readonly<Record<string, number>>): Promise<void> {
    for (const [name, value] of Object.entries(marks)) {
      if (!Number.isFinite(value) || value < 0) continue;
      await this.withKey(hexOf(name), (mark) => ({
        result: undefined,
        ...(mark === undefined || value > mark ? { write: value } : {}),
      }));
    }
  }

  /** The marks by key id digest (`sha256:<hex>`), for carrying them to another state folder. */
  readMarks(): Promise<Record<string, number>> {
    return Promise.resolve().then(() => this.readMarksNow());
  }

  private readMarksNow(): Record<string, number> {
    let names: string[];
    try {
      names = fs.readdirSync(this.locks.clockDir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw storeFailed('read', this.locks.clockDir, err);
    }
    const marks: Record<string, number> = {};
    for (const name of names) {
      const hex = /^iat-([0-9a-f]{32})$/.exec(name)?.[1];
      const mark = hex === undefined ? undefined : this.read(this.locks.fileOf(hex));
      if (hex !== undefined && mark !== undefined) marks[`sha256:${hex}`] = mark;
    }
    return marks;
  }

  /** The key's mark, read without the lock (a file is replaced whole, never written in place). */
  readMark(keyId: string): number | undefined {
    return this.read(this.fileOf(keyId));
  }

  /**
   * Forgets a key's mark (when its credential is removed). A mark of the last few seconds is kept:
   * another process may still sign with that key, and without the mark could repeat that time.
   * Returns 0 when no mark is left, else the ms after which the kept mark may be forgotten.
   */
  async forget(keyId: string): Promise<number> {
    return this.withKey(keyIdHex(keyId), (mark) => {
      if (mark === undefined) return { result: 0 };
      const keptForMs = Math.ceil((mark + FORGET_AFTER_SECONDS) * 1000 - this.now());
      return keptForMs > 0 ? { result: keptForMs } : { result: 0, remove: true };
    });
  }

  private async withKey<T>(
    hex: string,
    step: (mark: number | undefined) => { result: T; write?: number; remove?: boolean },
  ): Promise<T> {
    if (this.locks.holds(hex)) return this.apply(hex, step);
    const release = await this.locks.acquire(hex, 'the token clock of a key', this.options.lockWaitMs ?? 120_000);
    try {
      return this.apply(hex, step);
    } finally {
      await release();
    }
  }

  /** Read, decide and write in one synchronous step, under the key's lock. */
  private apply<T>(
    hex: string,
    step: (mark: number | undefined) => { result: T; write?: number; remove?: boolean },
  ): T {
    const file = this.locks.fileOf(hex);
    const damagedBefore = this.damaged;
    const mark = this.read(file);
    const { result, write, remove } = step(mark);
    // A damaged file is repaired with the time it counted as, so that the next read does not move it again.
    const repair = write === undefined && !remove && this.damaged !== damagedBefore ? mark : undefined;
    if (write !== undefined || repair !== undefined) this.writeAtomically(file, `${write ?? repair}\n`);
    if (remove) fs.rmSync(file, { force: true });
    return result;
  }

  private read(file: string): number | undefined {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8').trim();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw storeFailed('read', file, err);
    }
    if (MARK.test(text)) return Number(text);
    this.damaged++;
    this.report(
      `The token clock file ${file} holds no time (it was changed by something else); it counts as the current time, so the next token waits for the next second and no earlier time is handed out.`,
    );
    return this.now() / 1000;
  }

  private writeAtomically(file: string, text: string): void {
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      fs.writeFileSync(tmp, text, { mode: 0o600 });
      fs.renameSync(tmp, file);
    } catch (err) {
      fs.rmSync(tmp, { force: true });
      throw storeFailed('write', file, err);
    }
  }

  private report(message: string): void {
    if (this.reported.has(message)) return;
    this.reported.add(message);
    this.options.onProblem?.(message);
  }
}

function storeFailed(action: 'read' | 'write', file: string, err: unknown): MobilityError {
  const message =
    action === 'read'
      ? l10n.t('Cannot read the token clock file {0}: {1}. {2}', file, reasonOf(err), FIX_STATE_DIR)
      : l10n.t('Cannot write the token clock file {0}: {1}. {2}', file, reasonOf(err), FIX_STATE_DIR);
  return new MobilityError('CLOCK_STORE_FAILED', message, { cause: err });
}
