// Small helpers of the API client (apiClient.ts) on the path of every request: a base URL's origin (cached), a `Date`
// header in ms (the last one kept), a URL that may not be one, and whether a set of headers is empty.

/** Origins of base URLs already seen (a request reads its environment's origin again every time): bounded, cleared when full. */
const origins = new Map<string, string>();

/** The origin of a normalised base URL. */
export function originOf(base: string): string {
  let origin = origins.get(base);
  if (origin === undefined) {
    origin = new URL(base).origin;
    if (origins.size >= 64) origins.clear();
    origins.set(base, origin);
  }
  return origin;
}

/** The last `Date` header read and its time: a server sends the same one for a whole second of answers. */
let lastDate: { text: string; ms: number | undefined } = { text: '', ms: undefined };

/** A `Date` header in ms since the epoch, or undefined when absent or unreadable. */
export function parseHttpDate(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (text !== lastDate.text) {
    const ms = Date.parse(text);
    lastDate = { text, ms: Number.isNaN(ms) ? undefined : ms };
  }
  return lastDate.ms;
}

export function isEmpty(headers: Record<string, string> | undefined): boolean {
  if (!headers) return true;
  for (const name in headers) if (Object.hasOwn(headers, name)) return false;
  return true;
}

/** `new URL(text, base)`, or undefined when it is not a URL (one parse, where `URL.canParse` and `new URL` are two). */
export function parseUrl(text: string, base?: string): URL | undefined {
  try {
    return new URL(text, base);
  } catch {
    return undefined;
  }
}
