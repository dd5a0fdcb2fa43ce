import type * as vscode from 'vscode';
import { isMobilityError, redactSecrets } from '../../core/base';

/** Lines tagged by component, secrets redacted, on the one "Mobility API" log channel. */
export class Logger {
  constructor(readonly channel: vscode.LogOutputChannel) {}

  info(component: string, message: string): void {
    this.channel.info(`[${component}] ${redactSecrets(message)}`);
  }

  warn(component: string, message: string): void {
    this.channel.warn(`[${component}] ${redactSecrets(message)}`);
  }

  /** The full error (code, message, causes), redacted; stack traces only at trace level. */
  error(component: string, err: unknown): void {
    const parts: string[] = [];
    let current: unknown = err;
    for (let depth = 0; current && depth < 4; depth++) {
      const e = current as { code?: unknown; message?: unknown; cause?: unknown };
      const message =
        typeof e.message === 'string' ? e.message : typeof current === 'string' ? current : JSON.stringify(current);
      parts.push(`${isMobilityError(current) || typeof e.code === 'string' ? `${String(e.code)}: ` : ''}${message}`);
      current = e.cause;
    }
    this.channel.error(`[${component}] ${redactSecrets(parts.join(' ← caused by: '))}`);
    const stack = (err as Error)?.stack;
    if (stack) this.channel.trace(`[${component}] ${redactSecrets(stack)}`);
  }
}
