// The time claims of a token (iat, nbf, exp) checked by the linter: present, numbers of seconds, a lifetime of
// 60-3600 s, not expired, not in the future (spec 5.1 rules 5 and 6).
import * as l10n from '@vscode/l10n';
import { MAX_LIFETIME_SECONDS, MIN_LIFETIME_SECONDS } from './claims';
import { ownValue, jsonTypeOf } from './decodeJwt';
import { describeRelative, formatDuration, secondsWithSpan } from '../base';
import type { LintAdd as Add } from './lintFinding';
import { truncate } from './lintFinding';
import { checkTimes, lifetimeInRange } from './tokenRules';

/** How far `iat` may lie ahead of our clock before it is more than ordinary clock skew. */
export const IAT_FUTURE_TOLERANCE_SECONDS = 60;
/**
 * Seconds since 1970 stay below this until the year 5138; a larger `exp`/`iat` is almost
 * certainly milliseconds (Date.now() used where seconds were meant).
 */
const MILLISECONDS_THRESHOLD = 1e11;

export function lintTimes(
  payload: Record<string, unknown>,
  now: number,
  add: Add,
  written: ReadonlyMap<string, string>,
): void {
  const nowSeconds = now / 1000;
  const iat = numericClaim(payload, 'iat', nowSeconds, add, written);
  const nbf = numericClaim(payload, 'nbf', nowSeconds, add, written);
  const exp = numericClaim(payload, 'exp', nowSeconds, add, written);

  if (exp === 'missing') {
    add(
      'exp-missing',
      'error',
      '5.1 rule 5',
      l10n.t(
        'The token has no "exp". Every token must expire {0} to {1} seconds after it is issued.',
        MIN_LIFETIME_SECONDS,
        MAX_LIFETIME_SECONDS,
      ),
    );
  }
  if (iat === 'missing') {
    add(
      'iat-missing',
      'warning',
      '5.1 rule 6',
      l10n.t(
        'The token has no "iat". Tokens on one key must carry a timestamp later than every earlier one, and the local sandbox refuses tokens without "iat"; set it to the issue time in seconds.',
      ),
    );
  }

  const inMs = (name: string, v: number): boolean => {
    if (Math.abs(v) < MILLISECONDS_THRESHOLD) return false;
    add(
      'time-in-milliseconds',
      'error',
      '5.1 rule 5',
      l10n.t(
        '"{0}" is {1}, which looks like milliseconds. JWT times are whole seconds since 1970 (Math.floor(Date.now() / 1000)).',
        name,
        v,
      ),
    );
    return true;
  };
  const iatOk = typeof iat === 'number' && !inMs('iat', iat);
  const nbfOk = typeof nbf === 'number' && !inMs('nbf', nbf);
  const expOk = typeof exp === 'number' && !inMs('exp', exp);

  // Expiry and clock rules as the sandbox decides them (tolerating the same skew for iat and nbf).
  const broken = new Set(checkTimes(payload, now, IAT_FUTURE_TOLERANCE_SECONDS).map((v) => v.rule));
  if (iatOk && expOk) {
    const lifetime = exp - iat;
    if (!lifetimeInRange(iat, exp)) {
      const found =
        lifetime <= 0
          ? `"exp" is ${lifetime === 0 ? 'equal to' : `${formatDuration(-lifetime)} before`} "iat"`
          : `the lifetime (exp − iat) is ${secondsWithSpan(lifetime)}`;
      add(
        'lifetime-out-of-range',
        'error',
        '5.1 rule 5',
        l10n.t(
          '{0}. A token must expire {1} to {2} seconds (1 min to 1 h) after it is issued.',
          capitalise(found),
          MIN_LIFETIME_SECONDS,
          MAX_LIFETIME_SECONDS,
        ),
      );
    }
  }
  if (expOk && broken.has('expired')) {
    add(
      'expired',
      'error',
      '5.1 rule 5',
      l10n.t(
        'The token expired {0} (exp {1}). Tokens live at most an hour and are used once: generate a new one for each request.',
        describeRelative(exp * 1000, now),
        isoOf(exp),
      ),
    );
  }
  if (iatOk && broken.has('iat_in_future')) {
    add(
      'iat-in-future',
      'error',
      '5.1 rule 6',
      l10n.t(
        '"iat" is {0} in the future ({1}). The clock that made the token is ahead of this one; check clock skew (sync the clock with NTP) or how the issue time is computed.',
        formatDuration(iat - nowSeconds),
        isoOf(iat),
      ),
    );
  }
  if (nbfOk && broken.has('nbf_in_future')) {
    add(
      'nbf-in-future',
      'warning',
      '5.1 rule 5',
      l10n.t(
        '"nbf" says the token becomes valid {0} ({1}), so it is refused until then. Leave "nbf" out or set it no later than "iat".',
        describeRelative(nbf * 1000, now),
        isoOf(nbf),
      ),
    );
  }
}

/** The claim's number, 'missing', or 'wrong' (reported here). */
function numericClaim(
  payload: Record<string, unknown>,
  name: 'iat' | 'nbf' | 'exp',
  nowSeconds: number,
  add: Add,
  written: ReadonlyMap<string, string>,
): number | 'missing' | 'wrong' {
  const v = ownValue(payload, name);
  if (v === undefined) return 'missing';
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  const rule = name === 'iat' ? '5.1 rule 6' : '5.1 rule 5';
  if (typeof v === 'number') {
    // `1e400`: JSON, but beyond what a number (and so any date) holds; JSON.parse makes it Infinity.
    add(
      'claim-wrong-type',
      'error',
      rule,
      l10n.t(
        '"{0}" is {1}, which is not a finite NumericDate: no date is that far away, and a JSON parser reads it as infinity (or refuses it). It must be a number of seconds since 1970, e.g. {2} for now.',
        name,
        truncate(written.get(name) ?? String(v)),
        Math.floor(nowSeconds),
      ),
    );
    return 'wrong';
  }
  const shown = typeof v === 'string' ? ` ("${truncate(v)}")` : '';
  add(
    'claim-wrong-type',
    'error',
    rule,
    l10n.t(
      '"{0}" is {1}{2}; it must be a JSON number of seconds since 1970, e.g. {3} for now.',
      name,
      typeof v === 'number' ? 'not a finite number' : jsonTypeOf(v),
      shown,
      Math.floor(nowSeconds),
    ),
  );
  return 'wrong';
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function isoOf(seconds: number): string {
  return Math.abs(seconds) <= 8.64e12 ? new Date(seconds * 1000).toISOString() : 'out of range';
}
