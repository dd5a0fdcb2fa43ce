/** Longer log text is cut first, so that a hostile message cannot make redaction slow. */
export const MAX_LOG_TEXT = 10_000;

/** A compact JWS/JWT: a JSON header (base64url `ey…`) and two more segments, or three long base64url segments. */
const TOKEN_SHAPED =
  /(?<![A-Za-z0-9_-])(?:ey[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*|[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,})/g;
/**
 * A run of 32 or more base64 characters, starting a word (not inside a path, URL or file name),
 * checked by `looksRandom` before it is redacted.
 */
const LONG_RUN = /(?<![A-Za-z0-9+/_.\\-])[A-Za-z0-9][A-Za-z0-9+/_-]{31,}={0,2}/g;
/** The value of an Authorization header (or field) that carries a bearer credential, whatever its shape. */
const AUTHORIZATION_BEARER = /(authorization["']?\s*[:=]\s*["']?bearer\s+)[^\s"',;]+/gi;

/**
 * Whether a long run looks like a random secret (an API key, a key id, base64 key material) rather
 * than a word, a UUID or a hex digest: digits, capitals and small letters all occur in it.
 */
function looksRandom(run: string): boolean {
  const count = (re: RegExp) => run.match(re)?.length ?? 0;
  return count(/[0-9]/g) >= 2 && count(/[A-Z]/g) >= 2 && count(/[a-z]/g) >= 2 && !/[/]{2}/.test(run);
}

/**
 * Removes secrets from text that is about to be logged (the Output channel, an unexpected failure's message): PEM private keys, token-shaped
 * strings (compact JWTs, three long base64url segments), long random-looking strings, JWK private
 * members and the value of an `Authorization: Bearer` header. The words a server writes after
 * "bearer" in prose ("bearer token expired") stay. Text longer than `maxLength` (default MAX_LOG_TEXT, for logs) is cut
 * first. Never for a server's answer shown to the user: that hides our own secrets by value (`ownSecretsMasker`), so
 * that a server's random-looking values come back as they were sent.
 */
export function redactSecrets(text: string, maxLength = MAX_LOG_TEXT): string {
  const bounded =
    text.length > maxLength
      ? `${text.slice(0, maxLength)}… (${text.length - maxLength} more characters not logged)`
      : text;
  return bounded
    .replace(
      /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
      '<private key redacted>',
    )
    .replace(AUTHORIZATION_BEARER, '$1<redacted>')
    .replace(TOKEN_SHAPED, '<token redacted>')
    .replace(/("(?:d|p|q|dp|dq|qi|k|private_key|private_key_id)"\s*:\s*")[^"]*"/g, '$1<redacted>"')
    .replace(LONG_RUN, (run) => (looksRandom(run) ? '<secret redacted>' : run));
}

/**
 * A key id (`kid`) as it may be shown, since the key identifier is a secret (spec 5.7): one of 16 characters or more
 * shows an eighth of it at each end, at most 4 characters (`ab12…f9c0` of a 32-character id, `sa…9b` of a
 * 21-character one); a shorter one shows nothing (`…`): a few characters of a short id would be a useful part of it.
 * Any other value (a malformed header's kid) is masked as its JSON text. Only a token the user hands in (Decode JWT,
 * the hover, `mobility-api decode`) shows its kid whole.
 */
export function maskKeyId(kid: unknown): string {
  const text = typeof kid === 'string' ? kid : (safeJson(kid) ?? '(a deeply nested value)');
  const end = text.length < 16 ? 0 : Math.min(4, Math.floor(text.length / 8));
  return end === 0 ? '…' : `${text.slice(0, end)}…${text.slice(-end)}`;
}

/** The first 10 and last 6 characters of a token; short texts give away at most 4 characters. */
export function shortenToken(token: string): string {
  if (token.length <= 24) return `${token.slice(0, 4)}…`;
  return `${token.slice(0, 10)}…${token.slice(-6)}`;
}

/** What a request of ours carried that a server may echo back: the tokens it sent, and the key id. */
export interface OwnSecrets {
  tokens?: readonly (string | undefined)[];
  kid?: unknown;
}

/**
 * A function that hides our own secrets in a text of a server's (or in what is about to be shown of it): each token
 * sent shortened, the key id masked (`maskKeyId`). Only these exact values are matched, never a shape: a server's own
 * values (a 40-character vehicle type, a bytes field) are shown as they came. The kid is matched in any case (a hex
 * kid upper-cased) and percent-encoded (in a URL the server quotes); one of 8 characters or more wherever it stands,
 * a shorter one where it stands as a whole word (not inside a longer run of letters and digits). Compiled once, linear
 * in the text, so that it may run on every string of a stream of a million messages, or on one of many megabytes.
 */
export function ownSecretsMasker(own: OwnSecrets): (text: string) => string {
  const tokens = [...new Set((own.tokens ?? []).filter((t): t is string => typeof t === 'string' && t.length >= 8))];
  const kid = typeof own.kid === 'string' && own.kid.length > 0 ? own.kid : undefined;
  const kidPattern = kid === undefined ? undefined : kidRegExp(kid);
  const masked = kid === undefined ? '' : maskKeyId(kid);
  if (!tokens.length && !kidPattern) return (text) => text;
  return (text) => {
    let out = text;
    for (const token of tokens) if (out.includes(token)) out = out.split(token).join(shortenToken(token));
    return kidPattern ? out.replace(kidPattern, () => masked) : out;
  };
}

/**
 * `value` (JSON data: a contract run, a report) as it may be reported: a copy with our own secrets masked in every
 * string (`ownSecretsMasker`), or `value` itself when none of them stands anywhere in its JSON text. The test is a
 * superset of the masker's matches (a plain substring, the kid in any ASCII case, no word boundary), made only for
 * secrets that JSON writes as themselves (ASCII without quotes, backslashes or control characters); any other secret
 * takes the copy.
 */
export function withoutOwnSecrets<T>(value: T, own: OwnSecrets): T {
  const text = JSON.stringify(value);
  if (text === undefined) return value;
  const tokens = (own.tokens ?? []).filter((t): t is string => typeof t === 'string' && t.length >= 8);
  const kidForms = typeof own.kid === 'string' && own.kid.length > 0 ? [own.kid, encodeURIComponent(own.kid)] : [];
  const plain = (secret: string) => /^[\x20-\x7e]*$/.test(secret) && !/["\\]/.test(secret);
  const lower = kidForms.length ? text.toLowerCase() : '';
  const mayHold =
    tokens.some((t) => !plain(t) || text.includes(t)) ||
    kidForms.some((k) => !plain(k) || lower.includes(k.toLowerCase()));
  if (!mayHold) return value;
  const mask = ownSecretsMasker(own);
  return JSON.parse(text, (_key, v: unknown) => (typeof v === 'string' ? mask(v) : v)) as T;
}

/** The kid as a server may echo it: as it is or percent-encoded, in any case; a short one as a whole word only. */
function kidRegExp(kid: string): RegExp {
  const forms = [...new Set([kid, encodeURIComponent(kid)])]
    .map((form) => form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('|');
  return new RegExp(kid.length >= 8 ? forms : `(?<![A-Za-z0-9])(?:${forms})(?![A-Za-z0-9])`, 'gi');
}

/** `text` (a server's, about a request signed with key `kid`) with every occurrence of that kid masked (`ownSecretsMasker`). */
export function maskKidIn(text: string, kid: unknown): string {
  return ownSecretsMasker({ kid })(text);
}

/** The JSON text of a value; undefined for one nested too deeply to serialise (or a function). */
function safeJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}
