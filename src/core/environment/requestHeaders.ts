import * as l10n from '@vscode/l10n';
import type { Environment } from './environment';
import { MobilityError } from '../base';

/** The media type of MDS 2.0 JSON answers, asked for by default on MDS environments. */
export const MDS_ACCEPT = 'application/vnd.mds+json;version=2.0';

/** The media type of MDS 2.0 CSV reports (`/reports/{YYYY-MM}.csv`). */
export const MDS_CSV_ACCEPT = 'text/vnd.mds+csv;version=2.0';

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// eslint-disable-next-line no-control-regex
const BAD_VALUE = /[\r\n\u0000]/;
/** Ours on every request: a configured Authorization would leak or clash, the others describe our own request. */
const OURS = /^(authorization|content-type|host|content-length)$/i;

/**
 * The headers of a GET on `environment`, except `Authorization`: `User-Agent`, a default
 * `Accept: application/vnd.mds+json;version=2.0` on MDS environments, the environment's headers,
 * then `extra` (later layers win, names compared without case; an empty value removes the header, so
 * `Accept: ''` sends no Accept at all), then `Content-Type:
 * application/json`. Authorization, Content-Type, Host and Content-Length from the environment or
 * `extra` are dropped. Throws HEADER_INVALID for a name or value that cannot be sent.
 */
export function requestHeadersFor(environment: Environment, extra?: Record<string, string>, userAgent = 'mobility-api-explorer'): Record<string, string> {
  const merged = new Map<string, [string, string]>();
  const put = (name: string, value: string) => merged.set(name.toLowerCase(), [name, value]);
  put('User-Agent', userAgent);
  if (environment.api === 'mds') put('Accept', MDS_ACCEPT);
  for (const layer of [environment.headers, extra]) {
    for (const [name, value] of Object.entries(layer ?? {})) {
      if (typeof value !== 'string' || OURS.test(name)) continue;
      if (value === '') {
        merged.delete(name.toLowerCase());
        continue;
      }
      checkHeader(name, value);
      put(name, value);
    }
  }
  put('Content-Type', 'application/json');
  return Object.fromEntries([...merged.values()]);
}

function checkHeader(name: string, value: string): void {
  if (!TOKEN.test(name)) {
    throw new MobilityError('HEADER_INVALID', l10n.t('The header name {0} cannot be sent: use letters, digits and - (for example X-Request-Id).', JSON.stringify(name)));
  }
  if (BAD_VALUE.test(value)) {
    throw new MobilityError('HEADER_INVALID', l10n.t('The value of the header {0} contains a line break or NUL, which cannot be sent. Put it on one line.', name));
  }
  if ([...value].some((ch) => ch.charCodeAt(0) > 0xff)) {
    throw new MobilityError('HEADER_INVALID', l10n.t('The value of the header {0} contains characters HTTP headers cannot carry (beyond Latin-1). Percent-encode them or leave them out.', name));
  }
}
