/**
 * Every failure the core reports has a stable `code` and a message that says what to fix.
 * Messages never contain a private key or a token. The message is built with `l10n.t` (@vscode/l10n): in
 * the extension host, whose bundles configure it (src/shared/l10n.ts), it is in the display language; in
 * the CLI, which never configures it, it is English. So the message is translated where it is built, from its
 * values, and no table in the shell repeats every message by code.
 */
import type { ErrorCode } from '../shared/errorCodes';

export type { ErrorCode } from '../shared/errorCodes';

/** A typed, user-facing failure. `message` is one or two sentences: what is wrong and what to do. */
export class MobilityError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MobilityError';
    this.code = code;
  }
}

/** True for errors thrown on purpose by this code base (as opposed to bugs). */
export function isMobilityError(err: unknown): err is MobilityError {
  return err instanceof MobilityError;
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
