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
/** Ours on every request: they describe our own request. (A user's Authorization is refused, see `takeUserAuthorization`.) */
const OURS = /^(content-type|host|content-length)$/i;
const AUTHORIZATION = /^authorization$/i;

/** Where a user's own Authorization header came from: the refusal names the explicit option of that place. */
export type AuthorizationSource =
  /** `oneRequest: false`: a command of many requests (harvest), which a fixed token cannot serve. */
  | { kind: 'cli'; oneRequest?: boolean }
  | { kind: 'requestFile'; request: string; line: number }
  | { kind: 'environment'; name: string }
  | { kind: 'request' };

/** A user's headers without their Authorization, and that Authorization when it is to be sent as written. */
export interface UserAuthorization {
  headers: Record<string, string>;
  authorization?: string;
}

/**
 * The one rule for a user's own `Authorization` header, on every path (CLI, request files, Send
 * Request): the product signs a fresh token for every request (spec 5.1 rule 4), so it neither swaps a
 * user's header for its token in silence nor sends the user's header silently. Without `asIs` such a
 * header is refused (AUTHORIZATION_GIVEN), naming the explicit option of `source`; with `asIs` it is
 * returned apart from the other headers, to go into `RequestOptions.authorization`.
 */
export function takeUserAuthorization(
  headers: Record<string, string> | undefined,
  source: AuthorizationSource,
  asIs = false,
): UserAuthorization {
  const rest: Record<string, string> = {};
  let authorization: string | undefined;
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (AUTHORIZATION.test(name)) authorization = value;
    else rest[name] = value;
  }
  if (authorization === undefined) return { headers: rest };
  if (!asIs) throw new MobilityError('AUTHORIZATION_GIVEN', authorizationRefusal(source));
  return { headers: rest, authorization };
}

function authorizationRefusal(source: AuthorizationSource): string {
  switch (source.kind) {
    case 'cli':
      if (source.oneRequest === false) {
        return l10n.t(
          '--header sets Authorization. mobility-api signs a fresh token for every request (spec 5.1 rule 4): it neither puts its token in place of yours nor sends yours. harvest sends many requests, so it cannot send a fixed token: leave the header out.',
        );
      }
      return l10n.t(
        '--header sets Authorization. mobility-api signs a fresh token for every request (spec 5.1 rule 4): it neither puts its token in place of yours nor sends yours unless asked. Leave the header out, or, to send this fixed token on purpose, add --send-authorization-as-is (a server refuses a token it has seen before).',
      );
    case 'requestFile':
      return l10n.t(
        'Request {0} (line {1}) sets its own Authorization header. Mobility API Explorer signs a fresh token for every request (spec 5.1 rule 4): it neither puts its token in place of yours nor sends yours unless asked. Remove the header, or, to send this fixed token on purpose, put the line "# @authorization as-is" above the request line (a server refuses a token it has seen before).',
        source.request,
        source.line,
      );
    case 'environment':
      return l10n.t(
        'The environment {0} sets an Authorization header in its headers. Mobility API Explorer signs a fresh token for every request (spec 5.1 rule 4): it neither puts its token in place of yours nor sends yours unless asked. Remove Authorization from the environment\'s headers (settings); to send a fixed token on purpose, use a request file with the line "# @authorization as-is" above the request line.',
        source.name,
      );
    case 'request':
      return l10n.t(
        'The request sets its own Authorization header. Mobility API Explorer signs a fresh token for every request (spec 5.1 rule 4): it neither puts its token in place of yours nor sends yours unless asked. Leave it out, or send a fixed token on purpose with --send-authorization-as-is (CLI) or the line "# @authorization as-is" above the request line (request files).',
      );
  }
}

/**
 * The headers of a GET on `environment`, except `Authorization`: `User-Agent`, a default
 * `Accept: application/vnd.mds+json;version=2.0` on MDS environments, the environment's headers,
 * then `extra` (later layers win, names compared without case; an empty value removes the header, so
 * `Accept: ''` sends no Accept at all), then `Content-Type:
 * application/json`. Content-Type, Host and Content-Length from the environment or `extra` are
 * dropped; an Authorization there is refused (AUTHORIZATION_GIVEN, see `takeUserAuthorization`).
 * Throws HEADER_INVALID for a name or value that cannot be sent.
 */
export function requestHeadersFor(
  environment: Environment,
  extra?: Record<string, string>,
  userAgent = 'mobility-api-explorer',
): Record<string, string> {
  const merged = new Map<string, [string, string]>();
  const put = (name: string, value: string) => merged.set(name.toLowerCase(), [name, value]);
  put('User-Agent', userAgent);
  if (environment.api === 'mds') put('Accept', MDS_ACCEPT);
  // A user's Authorization here came by no explicit option (that goes into RequestOptions.authorization): refused.
  const layers = [
    takeUserAuthorization(environment.headers, { kind: 'environment', name: environment.name }).headers,
    takeUserAuthorization(extra, { kind: 'request' }).headers,
  ];
  for (const layer of layers) {
    for (const [name, value] of Object.entries(layer)) {
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
    throw new MobilityError(
      'HEADER_INVALID',
      l10n.t(
        'The header name {0} cannot be sent: use letters, digits and - (for example X-Request-Id).',
        JSON.stringify(name),
      ),
    );
  }
  if (BAD_VALUE.test(value)) {
    throw new MobilityError(
      'HEADER_INVALID',
      l10n.t(
        'The value of the header {0} contains a line break or NUL, which cannot be sent. Put it on one line.',
        name,
      ),
    );
  }
  if ([...value].some((ch) => ch.charCodeAt(0) > 0xff)) {
    throw new MobilityError(
      'HEADER_INVALID',
      l10n.t(
        'The value of the header {0} contains characters HTTP headers cannot carry (beyond Latin-1). Percent-encode them or leave them out.',
        name,
      ),
    );
  }
}
