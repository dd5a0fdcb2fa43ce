/**
 * Every failure the core reports has a stable `code` and a message that says what to fix.
 * Messages never contain a private key or a token. The message is built with `l10n.t` (@vscode/l10n): in
 * the extension host, whose bundles configure it (src/shared/l10n.ts), it is in the display language; in
 * the CLI, which never configures it, it is English. So the message is translated where it is built, from its
 * values, and no table in the shell repeats every message by code.
 */
import type { ErrorCode } from '../../shared/errorCodes';

export type { ErrorCode } from '../../shared/errorCodes';

/**
 * Marks a MobilityError of any bundle. The extension is several esbuild bundles (dist/extension.js,
 * dist/harvest.js, dist/resultsPanel.js, ...), each with its own copy of this class, and an error built in one
 * is caught in another (the harvest engine retries on the window's client's errors), so `instanceof` checks
 * this registered symbol rather than the class identity.
 */
const MOBILITY_ERROR = Symbol.for('mobility-api-explorer.MobilityError');

/** A typed, user-facing failure. `message` is one or two sentences: what is wrong and what to do. */
export class MobilityError extends Error {
  readonly code: ErrorCode;

  /** True for a MobilityError built by any bundle's copy of this class (see MOBILITY_ERROR). */
  static [Symbol.hasInstance](value: unknown): value is MobilityError {
    return (
      typeof value === 'object' && value !== null && (value as { [MOBILITY_ERROR]?: unknown })[MOBILITY_ERROR] === true
    );
  }

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MobilityError';
    this.code = code;
    Object.defineProperty(this, MOBILITY_ERROR, { value: true });
  }
}

/** True for errors thrown on purpose by this code base (as opposed to bugs). */
export function isMobilityError(err: unknown): err is MobilityError {
  return err instanceof MobilityError;
}

/** A cancellation (the user, a signal, a stop button), from any bundle: the one code, CANCELLED. */
export function isCancelled(err: unknown): err is MobilityError {
  return isMobilityError(err) && err.code === 'CANCELLED';
}

/**
 * The message of anything thrown: a MobilityError's (already in the display language), an Error's, or the
 * value as text. The one place that reads a caught value's message.
 */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'string') return err;
  try {
    return String(err);
  } catch {
    return 'unknown error';
  }
}
