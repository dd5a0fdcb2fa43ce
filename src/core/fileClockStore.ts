import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ClockDecision, ClockStore } from './issueClock';
import { MobilityError } from './errors';

interface StateFile {
  version: 1;
  /** Key id → NumericDate of the last token issued with that key. Never key material. */
  lastIssuedAt: Record<string, number>;
}

/** Where the CLI keeps its state: `$MOBILITY_API_STATE_DIR`, else the platform's user state folder. */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.MOBILITY_API_STATE_DIR) return env.MOBILITY_API_STATE_DIR;
  const home = os.homedir();
  if (process.platform === 'win32') return path.join(env.LOCALAPPDATA || path.join(home, 'AppData', 'Local'), 'mobility-api');
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'mobility-api');
  return path.join(env.XDG_STATE_HOME || path.join(home, '.local', 'state'), 'mobility-api');
}

/**
 * A clock store in a JSON file, safe for several processes at once (a CLI run in parallel from a
 * script): each update holds an exclusive lock file, and the state is replaced atomically by rename,
 * so a crash never leaves a half-written file.
 */
export class FileClockStore implements ClockStore {
  private readonly lockPath: string;

  constructor(readonly filePath: string, private readonly lockTimeoutMs = 5000) {
    this.lockPath = `${filePath}.lock`;
  }

  async update(keyId: string, decide: (last: number | undefined) => ClockDecision): Promise<ClockDecision> {
    await this.lock();
    try {
      const state = this.read();
      const last = Object.hasOwn(state.lastIssuedAt, keyId) ? state.lastIssuedAt[keyId] : undefined;
      const decision = decide(last);
      if ('issue' in decision) {
        state.lastIssuedAt[keyId] = decision.issue;
        this.write(state);
      }
      return decision;
    } finally {
      fs.rmSync(this.lockPath, { force: true });
    }
  }

  /** Forgets a key's mark (when its credential is removed). */
  async forget(keyId: string): Promise<void> {
    await this.lock();
    try {
      const state = this.read();
      if (Object.hasOwn(state.lastIssuedAt, keyId)) {
        delete state.lastIssuedAt[keyId];
        this.write(state);
      }
    } finally {
      fs.rmSync(this.lockPath, { force: true });
    }
  }

  private read(): StateFile {
    let text: string;
    try {
      text = fs.readFileSync(this.filePath, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, lastIssuedAt: Object.create(null) as Record<string, number> };
      throw new MobilityError('CLOCK_STORE_FAILED', `Cannot read the token clock state file ${this.filePath}: ${(err as Error).message}`, { cause: err });
    }
    try {
      const parsed = JSON.parse(text) as Partial<StateFile>;
      const marks: Record<string, number> = Object.create(null) as Record<string, number>;
      const source = parsed && typeof parsed.lastIssuedAt === 'object' && parsed.lastIssuedAt !== null ? parsed.lastIssuedAt : null;
      if (!source) throw new Error('no lastIssuedAt object');
      for (const [k, v] of Object.entries(source)) if (typeof v === 'number' && Number.isFinite(v)) marks[k] = v;
      return { version: 1, lastIssuedAt: marks };
    } catch (err) {
      throw new MobilityError(
        'CLOCK_STORE_FAILED',
        `The token clock state file ${this.filePath} is damaged (${(err as Error).message}). It is left as it is; move it away to start afresh (the first token per key may then be refused if its time is not later than the last one the server saw).`,
        { cause: err },
      );
    }
  }

  private write(state: StateFile): void {
    fs.mkdirSync(path.dirname(this.filePath), { recursive: true, mode: 0o700 });
    const tmp = `${this.filePath}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
    fs.renameSync(tmp, this.filePath);
  }

  private async lock(): Promise<void> {
    fs.mkdirSync(path.dirname(this.filePath), { recursive: true, mode: 0o700 });
    const deadline = Date.now() + this.lockTimeoutMs;
    for (;;) {
      try {
        fs.closeSync(fs.openSync(this.lockPath, 'wx', 0o600));
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw new MobilityError('CLOCK_STORE_FAILED', `Cannot lock the token clock state file ${this.filePath}: ${(err as Error).message}`, { cause: err });
        }
      }
      // A lock older than the timeout was left by a process that died: take it over.
      try {
        if (Date.now() - fs.statSync(this.lockPath).mtimeMs > this.lockTimeoutMs) fs.rmSync(this.lockPath, { force: true });
      } catch {
        // gone in between: try again
      }
      if (Date.now() > deadline) {
        throw new MobilityError('CLOCK_STORE_FAILED', `The token clock state file ${this.filePath} stays locked by another process; if none is running, delete ${this.lockPath}.`);
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}
