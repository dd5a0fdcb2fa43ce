import * as l10n from '@vscode/l10n';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ClockDecision, ClockStore } from './issueClock';
import { acquireCrossProcessLock, ensureStateDir, FIX_STATE_DIR, reasonOf } from './crossProcessLock';
import { errorMessage, MobilityError } from '../base';

/** The file, in the state folder, that holds the last issue time of every key. */
export const CLOCK_FILE_NAME = 'issue-clock.json';

/**
 * When both copies of the state are unreadable, every mark they held is assumed to be at most this
 * much later than the newer copy's mtime: a mark is always written before its time is handed out,
 * and never ahead of the wall clock at that moment, so it lies at or before the write. The margin
 * covers file systems that keep mtimes in whole seconds (1 s) or two-second steps (FAT, 2 s).
 */
const MTIME_MARGIN_SECONDS = 2;

/** Marks younger than this are kept by `forget`: a time issued this recently could be issued again. */
const FORGET_AFTER_SECONDS = 3;

/**
 * How a key id is named in the state folder: a hash, so that the files name no key ids. Entries of
 * earlier versions, which named key ids as they are, are converted when read.
 */
export function keyIdDigest(keyId: string): string {
  return `sha256:${createHash('sha256').update(keyId, 'utf8').digest('hex').slice(0, 32)}`;
}

const asDigest = (name: string) => (name.startsWith('sha256:') ? name : keyIdDigest(name));

interface StateFile {
  version: 1;
  /** Key id digest → NumericDate of the last token issued with that key. Never key material. */
  lastIssuedAt: Record<string, number>;
  /** Set after a rebuild: every key's last issue time is at most this (the marks before it were lost). */
  floor?: number;
}

interface State {
  marks: Map<string, number>;
  floor?: number;
}

type Copy = { kind: 'missing' } | { kind: 'ok'; state: State } | { kind: 'damaged'; reason: string; mtimeMs: number };

/** Where the CLI and the extension keep their state: `$MOBILITY_API_STATE_DIR`, else the platform's user state folder. */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.MOBILITY_API_STATE_DIR) return env.MOBILITY_API_STATE_DIR;
  const home = os.homedir();
  if (process.platform === 'win32') return path.join(env.LOCALAPPDATA || path.join(home, 'AppData', 'Local'), 'mobility-api');
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'mobility-api');
  return path.join(env.XDG_STATE_HOME || path.join(home, '.local', 'state'), 'mobility-api');
}

export interface FileClockStoreOptions {
  /** Told once per problem (a damaged state file that was rebuilt, a lock lost); never holds a secret. */
  onProblem?: (message: string) => void;
  /** Give up after waiting this long for another process's lock; default 30 s. */
  lockWaitMs?: number;
  /** Wall clock in ms, for `forget`; injectable for tests. */
  now?: () => number;
}

/**
 * The per-key issue clock's marks in `<stateDir>/issue-clock.json`, shared by every process that
 * signs (each VS Code window, the CLI, scripts on the core), each key named by {@link keyIdDigest}.
 * Each update holds a cross-process
 * lock (proper-lockfile), reads, decides and writes before the time is handed out.
 *
 * Damage never leads to an earlier time: every write goes first to `issue-clock.json.bak`, then to
 * `issue-clock.json`, each by an atomic rename, so at any moment one readable copy holds the
 * newest mark (the marks are merged, the larger wins). When neither copy can be read, the store is
 * rebuilt with a floor under every key: the newer copy's mtime plus a margin (a mark is written
 * before it is used and never lies ahead of the clock when written; this holds unless the wall
 * clock stepped back since, or a network file system stamps mtimes with its own clock). The first
 * token per key then waits up to about 3 s. Both cases are reported through `onProblem`.
 */
export class FileClockStore implements ClockStore {
  readonly filePath: string;
  readonly backupPath: string;
  private readonly reported = new Set<string>();
  private readonly now: () => number;

  constructor(readonly stateDir: string, private readonly options: FileClockStoreOptions = {}) {
    this.filePath = path.join(stateDir, CLOCK_FILE_NAME);
    this.backupPath = `${this.filePath}.bak`;
    this.now = options.now ?? Date.now;
  }

  async update(keyId: string, decide: (last: number | undefined) => ClockDecision): Promise<ClockDecision> {
    return this.locked<ClockDecision>((state) => {
      const decision = decide(markOf(state, keyIdDigest(keyId)));
      if ('issue' in decision) {
        state.marks.set(keyIdDigest(keyId), decision.issue);
        return { result: decision, write: true };
      }
      return { result: decision, write: false };
    });
  }

  /**
   * Raises marks to at least the given ones, by key id or by digest as `readMarks` gives them
   * (carrying marks over from globalState or another store); never lowers one.
   */
  async raiseMarks(marks: Readonly<Record<string, number>>): Promise<void> {
    const entries = Object.entries(marks)
      .filter(([, v]) => Number.isFinite(v))
      .map(([k, v]) => [asDigest(k), v] as const);
    if (!entries.length) return;
    await this.locked((state) => {
      let write = false;
      for (const [keyId, mark] of entries) {
        if (!(mark <= (state.marks.get(keyId) ?? -Infinity))) {
          state.marks.set(keyId, mark);
          write = true;
        }
      }
      return { result: undefined, write };
    });
  }

  /** The marks by key id digest (a floor from a rebuild applied to each), for carrying them to another store. */
  async readMarks(): Promise<Record<string, number>> {
    return this.locked((state) => {
      // Every name is a digest (`sha256:…`), so a plain object is safe from prototype keys.
      return { result: Object.fromEntries([...state.marks.keys()].map((name) => [name, markOf(state, name)!])), write: false };
    });
  }

  /**
   * Forgets a key's mark (when its credential is removed). A mark of the last few seconds is kept:
   * another process may still sign with that key, and without the mark could repeat that time.
   * Returns 0 when no mark is left, else the ms after which the kept mark may be forgotten.
   */
  async forget(keyId: string): Promise<number> {
    return this.locked((state) => {
      const mark = state.marks.get(keyIdDigest(keyId));
      if (mark === undefined) return { result: 0, write: false };
      const keptForMs = Math.ceil((mark + FORGET_AFTER_SECONDS) * 1000 - this.now());
      if (keptForMs > 0) return { result: keptForMs, write: false };
      state.marks.delete(keyIdDigest(keyId));
      return { result: 0, write: true };
    });
  }

  private async locked<T>(step: (state: State) => { result: T; write: boolean }): Promise<T> {
    ensureStateDir(this.stateDir);
    const release = await acquireCrossProcessLock(this.filePath, {
      what: `the token clock state file ${this.filePath}`,
      maxWaitMs: this.options.lockWaitMs ?? 30_000,
      onCompromised: (message) => this.report(message),
    });
    try {
      const state = this.load();
      const { result, write } = step(state);
      if (write) this.save(state);
      return result;
    } finally {
      await release().catch((err: unknown) => this.report(`Could not release the lock on ${this.filePath}: ${reasonOf(err)}.`));
    }
  }

  private load(): State {
    const primary = this.readCopy(this.filePath);
    const backup = this.readCopy(this.backupPath);
    const good = [primary, backup].filter((c): c is Extract<Copy, { kind: 'ok' }> => c.kind === 'ok').map((c) => c.state);
    const damaged = ([[this.filePath, primary], [this.backupPath, backup]] as const).filter(([, c]) => c.kind === 'damaged') as Array<readonly [string, Extract<Copy, { kind: 'damaged' }>]>;
    if (good.length) {
      for (const [file, copy] of damaged) {
        this.report(`The token clock state file ${file} was damaged (${copy.reason}); it is rebuilt from the other copy, so no earlier time is handed out.`);
      }
      return mergeStates(good);
    }
    if (!damaged.length) return { marks: new Map() };
    const newestMs = Math.max(...damaged.map(([, c]) => c.mtimeMs));
    const floor = Math.ceil(newestMs / 1000) + MTIME_MARGIN_SECONDS;
    const files = damaged.map(([file, c]) => `${file} (${c.reason})`).join(' and ');
    this.report(
      `The token clock state ${files} could not be read, and the marks it held are lost. It is rebuilt: every key's next token is issued after ${new Date(floor * 1000).toISOString()}, later than any time the damaged file can have held, so the first token per key may wait a few seconds.`,
    );
    return { marks: new Map(), floor };
  }

  private readCopy(file: string): Copy {
    let text: string;
    let mtimeMs: number;
    try {
      text = fs.readFileSync(file, 'utf8');
      mtimeMs = fs.statSync(file).mtimeMs;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
      throw new MobilityError('CLOCK_STORE_FAILED', l10n.t('Cannot read the token clock state file {0}: {1}. {2}', file, reasonOf(err), FIX_STATE_DIR), { cause: err });
    }
    const parsed = parseState(text);
    return typeof parsed === 'string' ? { kind: 'damaged', reason: parsed, mtimeMs } : { kind: 'ok', state: parsed };
  }

  private save(state: State): void {
    const file: StateFile = { version: 1, lastIssuedAt: Object.fromEntries(state.marks) };
    if (state.floor !== undefined) file.floor = state.floor;
    const text = JSON.stringify(file, null, 2) + '\n';
    // The backup first: if we stop between the two, the backup holds the newer marks and is read too.
    this.writeAtomically(this.backupPath, text);
    this.writeAtomically(this.filePath, text);
  }

  private writeAtomically(file: string, text: string): void {
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      fs.writeFileSync(tmp, text, { mode: 0o600 });
      fs.renameSync(tmp, file);
    } catch (err) {
      fs.rmSync(tmp, { force: true });
      throw new MobilityError('CLOCK_STORE_FAILED', l10n.t('Cannot write the token clock state file {0}: {1}. {2}', file, reasonOf(err), FIX_STATE_DIR), { cause: err });
    }
  }

  private report(message: string): void {
    if (this.reported.has(message)) return;
    this.reported.add(message);
    this.options.onProblem?.(message);
  }
}

function markOf(state: State, keyId: string): number | undefined {
  const mark = state.marks.get(keyId);
  if (state.floor === undefined) return mark;
  return mark === undefined ? state.floor : Math.max(mark, state.floor);
}

function mergeStates(states: State[]): State {
  const marks = new Map<string, number>();
  let floor: number | undefined;
  for (const s of states) {
    for (const [k, v] of s.marks) marks.set(k, Math.max(v, marks.get(k) ?? -Infinity));
    if (s.floor !== undefined) floor = Math.max(s.floor, floor ?? -Infinity);
  }
  return floor === undefined ? { marks } : { marks, floor };
}

/** The state in a file's text, or why it cannot be trusted. Any entry that is not a time damages the whole copy. */
function parseState(text: string): State | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return text.trim() === '' ? 'it is empty' : `it is not JSON: ${errorMessage(err)}`;
  }
  if (typeof parsed !== 'object' || parsed === null) return 'it is not a JSON object';
  const { lastIssuedAt, floor } = parsed as Partial<Record<keyof StateFile, unknown>>;
  if (typeof lastIssuedAt !== 'object' || lastIssuedAt === null || Array.isArray(lastIssuedAt)) return 'it has no "lastIssuedAt" object';
  const marks = new Map<string, number>();
  for (const [k, v] of Object.entries(lastIssuedAt as Record<string, unknown>)) {
    if (typeof v !== 'number' || !Number.isFinite(v)) return `the entry of a key is ${JSON.stringify(v)?.slice(0, 20)}, not a time`;
    const name = asDigest(k);
    marks.set(name, Math.max(v, marks.get(name) ?? -Infinity));
  }
  if (floor === undefined) return { marks };
  if (typeof floor !== 'number' || !Number.isFinite(floor)) return '"floor" is not a time';
  return { marks, floor };
}
