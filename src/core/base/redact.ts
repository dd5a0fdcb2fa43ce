/** Longer log text is cut first, so that a hostile message cannot make redaction slow. */
export const MAX_LOG_TEXT = 10_000;

/** A compact JWS/JWT: a JSON header (base64url `ey…`) and two more segments, or three long base64url segments. */
const TOKEN_SHAPED = /(?<![A-Za-z0-9_-])(?:ey[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*|[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,})/g;
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
 * Removes secrets from text that is about to be logged or printed: PEM private keys, token-shaped
 * strings (compact JWTs, three long base64url segments), long random-looking strings, JWK private
 * members and the value of an `Authorization: Bearer` header. The words a server writes after
 * "bearer" in prose ("bearer token expired") stay. Text longer than `maxLength` (default MAX_LOG_TEXT, for logs) is cut
 * first; a value shown whole (one string of a server's answer) passes `Infinity` (each pattern is matched in linear time).
 */
export function redactSecrets(text: string, maxLength = MAX_LOG_TEXT): string {
  const bounded = text.length > maxLength ? `${text.slice(0, maxLength)}… (${text.length - maxLength} more characters not logged)` : text;
  return bounded
    .replace(/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g, '<private key redacted>')
    .replace(AUTHORIZATION_BEARER, '$1<redacted>')
    .replace(TOKEN_SHAPED, '<token redacted>')
    .replace(/("(?:d|p|q|dp|dq|qi|k|private_key|private_key_id)"\s*:\s*")[^"]*"/g, '$1<redacted>"')
    .replace(LONG_RUN, (run) => (looksRandom(run) ? '<secret redacted>' : run));
}

/**
 * A key id (`kid`) as it may be shown: a few characters at each end, never the whole, since the key
 * identifier is a secret (spec 5.7): `ab12…f9c0`. Short ids show less (at most a quarter at each end);
 * one of 3 characters or fewer shows none. Any other value (a malformed header's kid) is masked as its
 * JSON text. Only a token the user hands in (Decode JWT, the hover, `mobility-api decode`) shows its kid whole.
 */
export function maskKeyId(kid: unknown): string {
  const text = typeof kid === 'string' ? kid : (safeJson(kid) ?? '(a deeply nested value)');
  const end = Math.min(4, Math.floor(text.length / 4));
  return end === 0 ? '…' : `${text.slice(0, end)}…${text.slice(-end)}`;
}

/**
 * `text` (a server's, about a request signed with key `kid`) with every occurrence of that kid masked: a server may
 * echo the key id, which is a secret whatever its shape (a service account's is 40 hex digits, which `redactSecrets`
 * cannot tell from a digest). A kid under 8 characters is left alone: it would mask ordinary words.
 */
export function maskKidIn(text: string, kid: unknown): string {
  if (typeof kid !== 'string' || kid.length < 8) return text;
  // As the server may echo it: in another case (a hex kid upper-cased), or percent-encoded in a URL it quotes.
  const forms = [...new Set([kid, encodeURIComponent(kid)])].map((form) => form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const masked = maskKeyId(kid);
  return text.replace(new RegExp(forms.join('|'), 'gi'), () => masked);
}

/** The JSON text of a value; undefined for one nested too deeply to serialise (or a function). */
function safeJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}
