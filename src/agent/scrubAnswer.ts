// The one scrubber every tool's answer passes through, in both surfaces, before a model sees it: no compact JWT, no
// PEM, no JWK private member, no password in a URL, no key id (kid) but masked; text from a provider or a harvest cut
// to a size; coordinates rounded to about 100 m unless the user asked for them as they came.
import { maskKeyId, ownSecretsMasker, redactSecrets } from '../core/base';

/** What the scrubber knows besides the value: our own secrets to hide by value, and the user's choices. */
export interface ScrubOptions {
  /** Every key id of the session's credentials: hidden wherever it stands, in any case or percent-encoded. */
  kids?: readonly string[];
  /** Tokens signed in this call (a server may echo them). */
  tokens?: readonly string[];
  /** Coordinates as they came; else rounded to 3 decimals (about 100 m). */
  preciseLocations?: boolean;
  /** The longest string kept (a provider's text, a harvest's field); default 2000 characters. */
  maxString?: number;
  /** The longest list kept; default 200 entries. */
  maxList?: number;
}

const COORDINATE_KEYS = new Set(['lat', 'lng', 'lon', 'latitude', 'longitude']);
const PRIVATE_JWK_MEMBERS = new Set(['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'private_key', 'private_key_id']);
/** `scheme://user:password@`: the password goes, the user name stays. */
const PASSWORD_IN_URL = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/@:"'<>]*):[^\s/@"'<>]*@/gi;
const DEPTH_LIMIT = 40;

/** Rounds a coordinate to 3 decimals (about 110 m of latitude). */
function roundCoordinate(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/** A string as a model may read it: cut to `max`, then secrets out. */
function scrubString(text: string, max: number, mask: (text: string) => string): string {
  const cut = text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters not shown)` : text;
  return redactSecrets(mask(cut), cut.length + 1).replace(PASSWORD_IN_URL, '$1:<redacted>@');
}

/**
 * The value made safe for a model, walking it once: strings cut and scrubbed, `kid` members masked, JWK private
 * members removed, coordinates rounded, long lists cut with a note of how much is left out.
 */
export function scrubValue(value: unknown, options: ScrubOptions = {}): unknown {
  const max = options.maxString ?? 2000;
  const maxList = options.maxList ?? 200;
  const kids = (options.kids ?? []).filter((k) => k.length > 0);
  const maskers = [ownSecretsMasker({ tokens: options.tokens ?? [] }), ...kids.map((kid) => ownSecretsMasker({ kid }))];
  const mask = (text: string) => maskers.reduce((t, m) => m(t), text);
  const walk = (v: unknown, key: string | undefined, depth: number): unknown => {
    if (typeof v === 'string') {
      if (key === 'kid') return v.includes('…') ? v : maskKeyId(v);
      if (key !== undefined && PRIVATE_JWK_MEMBERS.has(key)) return '<redacted>';
      return scrubString(v, max, mask);
    }
    if (typeof v === 'number') {
      if (
        !options.preciseLocations &&
        key !== undefined &&
        COORDINATE_KEYS.has(key.toLowerCase()) &&
        Number.isFinite(v)
      )
        return roundCoordinate(v);
      return Number.isFinite(v) ? v : String(v);
    }
    if (typeof v === 'bigint') return v.toString();
    if (v === null || typeof v === 'boolean') return v;
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') return undefined;
    if (depth > DEPTH_LIMIT) return '(nested too deeply to show)';
    if (v instanceof Date) return v.toISOString();
    if (Array.isArray(v)) {
      // GeoJSON positions: [lng, lat] pairs of numbers.
      const coordinates = key === 'coordinates' && !options.preciseLocations;
      const shown = v
        .slice(0, maxList)
        .map((item) =>
          coordinates && typeof item === 'number'
            ? roundCoordinate(item)
            : walk(item, coordinates && Array.isArray(item) ? 'coordinates' : undefined, depth + 1),
        );
      if (v.length > maxList) shown.push(`… ${v.length - maxList} more not shown`);
      return shown;
    }
    if (typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(v as Record<string, unknown>)) {
        const walked = walk(item, k, depth + 1);
        if (walked !== undefined) out[scrubString(k, 200, mask)] = walked;
      }
      return out;
    }
    return null;
  };
  return walk(value, undefined, 0);
}

/** The text of an answer: the scrubbed value as JSON, passed once more through the text scrubber as a whole. */
export function answerText(value: unknown, options: ScrubOptions = {}): string {
  const json = JSON.stringify(scrubValue(value, options), null, 2) ?? 'null';
  const kids = (options.kids ?? []).filter((k) => k.length > 0);
  const masked = kids.reduce((t, kid) => ownSecretsMasker({ kid })(t), json);
  return redactSecrets(masked, masked.length + 1).replace(PASSWORD_IN_URL, '$1:<redacted>@');
}
