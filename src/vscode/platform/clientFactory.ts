import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { ApiClient } from '../../core/http';
import { defaultStateDir, expandHome, IssueClock, openSharedClock } from '../../core/clock';
import type { ClockStore, KeyRequestQueue, SharedClock } from '../../core/clock';
import { TokenIssuer } from '../../core/auth';
import { migrateGlobalStateClock } from './globalStateClockStore';
import type { Logger } from './logger';
import { Disposable } from './lifecycle';
import type { Settings } from './settings';
import { errorMessage } from '../../core/base';

/** The issue-clock marks, as the credential commands need them. */
export interface ClockMarks {
  /**
   * Forgets a key's mark, when its credential is removed. A mark of the last seconds stays until
   * it has aged, then goes, as long as `stillRemoved()` says no credential has taken the key id again.
   */
  forget(keyId: string, stillRemoved: () => Promise<boolean>): Promise<void>;
}

/** Tries to forget a removed key's kept mark again this many times (each once it has aged). */
const FORGET_RETRIES = 5;
/** Past the mark's age, so the retry does not find it a millisecond too young. */
const FORGET_SLACK_MS = 50;

/** A shared clock and the one-time preparation before its first use. */
interface PreparedClock extends SharedClock {
  ready(): Promise<void>;
}

/**
 * One API client for the window, rebuilt only when the token, request or state folder settings
 * change. Its issue clock and per-key request queue are shared with every other window, the CLI
 * and scripts through the state folder (`mobilityApi.stateDirectory`, default the well-known one).
 */
export class ClientFactory extends Disposable implements ClockMarks {
  private client: ApiClient | undefined;
  private shared: PreparedClock | undefined;

  constructor(
    private readonly settings: Settings,
    private readonly globalState: vscode.Memento,
    private readonly log: Logger,
  ) {
    super();
    this.register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (
          e.affectsConfiguration('mobilityApi.token') ||
          e.affectsConfiguration('mobilityApi.request') ||
          e.affectsConfiguration('mobilityApi.stateDirectory')
        )
          this.client = undefined;
      }),
    );
  }

  get(): ApiClient {
    if (this.client) return this.client;
    const shared = this.sharedClock();
    // The marks of earlier versions (globalState) are carried over before the first time is issued.
    const store: ClockStore = {
      update: async (keyId, decide) => {
        await shared.ready();
        return shared.store.update(keyId, decide);
      },
    };
    this.client = new ApiClient({
      issuer: new TokenIssuer({
        clock: new IssueClock({ store, precision: this.settings.clockPrecision }),
        lifetimeSeconds: this.settings.lifetimeSeconds,
      }),
      queue: shared.queue,
      timeoutMs: this.settings.timeoutMs,
      maxBytes: this.settings.maxBytes,
      userAgent: 'mobility-api-explorer (VS Code)',
    });
    return this.client;
  }

  get issuer(): TokenIssuer {
    return this.get().issuer;
  }

  /** The per-key request queue shared with every window and process: gRPC calls take their place in it as REST requests do. */
  get queue(): KeyRequestQueue {
    this.get();
    return this.sharedClock().queue;
  }

  async forget(keyId: string, stillRemoved: () => Promise<boolean>): Promise<void> {
    const shared = this.sharedClock();
    await shared.ready();
    const keptForMs = await shared.store.forget(keyId);
    if (keptForMs > 0) this.forgetLater(shared, keyId, stillRemoved, keptForMs, FORGET_RETRIES);
  }

  /** Tries again once a kept mark has aged; gives up after a few tries (another process keeps signing with the key). */
  private forgetLater(
    shared: PreparedClock,
    keyId: string,
    stillRemoved: () => Promise<boolean>,
    delayMs: number,
    triesLeft: number,
  ): void {
    if (this.isDisposed || triesLeft <= 0) return;
    const timer = setTimeout(() => {
      pending.dispose();
      void (async () => {
        if (this.isDisposed || !(await stillRemoved())) return;
        const keptForMs = await shared.store.forget(keyId);
        if (keptForMs > 0) this.forgetLater(shared, keyId, stillRemoved, keptForMs, triesLeft - 1);
      })().catch((err: unknown) =>
        this.log.warn('clock', `could not forget a removed key's clock mark: ${errorMessage(err)}`),
      );
    }, delayMs + FORGET_SLACK_MS);
    timer.unref?.();
    const pending = this.register(new vscode.Disposable(() => clearTimeout(timer)));
  }

  /** The shared clock's mark for a key (the latest iat any window or process signed with it), for a refusal's explanation. */
  async keyMark(keyId: string): Promise<number | undefined> {
    const shared = this.sharedClock();
    await shared.ready();
    return shared.store.readMark(keyId);
  }

  /** The state folder: the setting (`~` for the home folder, relative to it), else the well-known one. */
  stateDir(): string {
    const setting = this.settings.stateDirectory;
    return setting ? path.resolve(os.homedir(), expandHome(setting)) : path.resolve(defaultStateDir());
  }

  private sharedClock(): PreparedClock {
    const dir = this.stateDir();
    if (this.shared?.stateDir === dir) return this.shared;
    const previous = this.shared;
    const opened = openSharedClock(dir, { onProblem: (message) => this.log.warn('clock', message) });
    let pending: Promise<void> | undefined;
    const ready = () =>
      (pending ??= this.prepare(opened, previous).catch((err: unknown) => {
        // Tried again with the next token, e.g. once the folder is writable.
        pending = undefined;
        throw err;
      }));
    this.shared = { ...opened, ready };
    return this.shared;
  }

  private async prepare(opened: SharedClock, previous: SharedClock | undefined): Promise<void> {
    const carried = await migrateGlobalStateClock(this.globalState, opened.store);
    if (carried)
      this.log.info(
        'clock',
        `moved ${carried} issue-clock mark(s) from this profile's globalState to ${opened.store.locks.clockDir}`,
      );
    if (!previous) return;
    // A new state folder starts from the old one's marks, or a key could get a time it already had.
    try {
      await opened.store.raiseMarks(await previous.store.readMarks());
    } catch (err) {
      this.log.warn(
        'clock',
        `Could not carry the issue-clock marks from ${previous.stateDir} to ${opened.stateDir}: ${errorMessage(err)}`,
      );
    }
  }
}
