// Pure functions from core results to the results panel's view models (src/shared/protocol.ts).
// No `vscode` import, so that every view can be checked in plain Node. The rule that matters most:
// a view model never holds a raw bearer token, only its shortened form.
import { curlCommand } from '../core/curlCommand';
import type { HttpExchange, VehicleListing } from '../core/apiClient';
import type { DecodedToken } from '../core/decodeJwt';
import { decodeJwt } from '../core/decodeJwt';
import type { Environment } from '../core/environment';
import { API_LABELS, withoutTrailingSlashes } from '../core/environment';
import type { LintFinding } from '../core/lintToken';
import { lintToken } from '../core/lintToken';
import type { SignatureCheck } from '../core/verifySignature';
import type {
  BodyView,
  EnvironmentView,
  ErrorView,
  FindingView,
  HeaderView,
  ListingResultView,
  ListingShape,
  PageView,
  RequestErrorResultView,
  RequestView,
  ResponseView,
  ResultSummary,
  TimeView,
  TokenResultView,
  TokenView,
  VehicleColumns,
} from '../shared/protocol';

/** Raw bodies longer than this are cut in the Raw view (the whole text opens in an editor). */
export const MAX_RAW_CHARS = 1_000_000;

/** The first 10 and last 6 characters of a token; short texts give away at most 4 characters. */
export function shortenToken(token: string): string {
  if (token.length <= 24) return `${token.slice(0, 4)}…`;
  return `${token.slice(0, 10)}…${token.slice(-6)}`;
}

/** Replaces every occurrence of `secret` in `text` by its shortened form. */
function scrub(text: string, secret: string | undefined): string {
  if (!secret || secret.length < 8 || !text.includes(secret)) return text;
  return text.split(secret).join(shortenToken(secret));
}

export function environmentView(env: Environment): EnvironmentView {
  return { id: env.id, name: env.name, api: env.api, apiLabel: API_LABELS[env.api] ?? env.api, stage: env.stage, baseUrl: env.baseUrl };
}

/**
 * A ready-to-run curl command for a GET with these headers. `token` is put in as given: pass
 * `"$TOKEN"` for a preview, a fresh token for the clipboard. `Authorization` in `headers` is ignored.
 */
export function buildCurlCommand(url: string, headers: Record<string, string>, token: string): string {
  return curlCommand(url, headers, token === '$TOKEN' ? { shellVariable: 'TOKEN' } : { token });
}

function requestView(page: HttpExchange): RequestView {
  const raw = page.token?.token;
  const tokenPreview = raw ? shortenToken(raw) : undefined;
  const headers: HeaderView[] = Object.entries(page.requestHeaders).map(([name, value]) => {
    if (/^authorization$/i.test(name)) return { name, value: tokenPreview ? `Bearer ${tokenPreview}` : 'Bearer <redacted>', secret: true };
    return { name, value: scrub(value, raw) };
  });
  return { method: page.method, url: page.url, headers, tokenPreview, curlPreview: buildCurlCommand(page.url, page.requestHeaders, '$TOKEN') };
}

function timeView(t: { seconds: number; iso: string } | undefined): TimeView | undefined {
  return t ? { seconds: t.seconds, iso: t.iso } : undefined;
}

function findingViews(findings: readonly LintFinding[]): FindingView[] {
  return findings.map((f) => ({ id: f.id, severity: f.severity, message: f.message, rule: f.rule }));
}

/** A token view without the token: `token` is read only for its length and shortened form. */
export function tokenView(args: {
  token: string;
  decoded: DecodedToken;
  findings: readonly LintFinding[];
  signature?: SignatureCheck;
  source: string;
  alreadyUsed: boolean;
}): TokenView {
  const { token, decoded } = args;
  const view: TokenView = {
    source: scrub(args.source, token),
    preview: shortenToken(token),
    length: token.length,
    header: decoded.header,
    payload: decoded.payload,
    findings: findingViews(args.findings).map((f) => ({ ...f, message: scrub(f.message, token) })),
    signature: args.signature ? { ...args.signature } : { state: 'unchecked' },
    canCopy: token.length > 0,
    alreadyUsed: args.alreadyUsed,
  };
  const iat = timeView(decoded.times.iat);
  const nbf = timeView(decoded.times.nbf);
  const exp = timeView(decoded.times.exp);
  if (iat) view.iat = iat;
  if (nbf) view.nbf = nbf;
  if (exp) view.exp = exp;
  if (decoded.lifetimeSeconds !== undefined) view.lifetimeSeconds = decoded.lifetimeSeconds;
  return view;
}

function pageTokenView(page: HttpExchange, pageNumber: number, env: Environment, now: number): TokenView | undefined {
  const raw = page.token?.token;
  if (!raw) return undefined;
  const decoded = decodeJwt(raw, { now });
  if (!decoded.ok) return undefined;
  // Checked against the base URL, the audience the server expects (spec 5.3), so a mistaken custom `audience` shows too.
  const findings = lintToken(decoded.token, { now, knownAudiences: [withoutTrailingSlashes(env.baseUrl)] });
  return tokenView({ token: raw, decoded: decoded.token, findings, source: `Sent with page ${pageNumber}`, alreadyUsed: true });
}

function responseView(page: HttpExchange): ResponseView {
  const raw = page.token?.token;
  const view: ResponseView = {
    status: page.status,
    statusText: page.statusText,
    ok: page.ok,
    contentType: page.contentType,
    bytes: page.bytes,
    timings: { ...page.timings },
    headers: Object.entries(page.responseHeaders).map(([name, value]) => ({ name, value: scrub(value, raw) })),
    // The panel has no CSV view yet: a CSV body is shown as its text.
    bodyKind: page.bodyKind === 'csv' ? 'text' : page.bodyKind,
  };
  if (page.redirectedFrom?.length) view.redirectedFrom = [...page.redirectedFrom];
  if (page.bodyProblem) view.bodyProblem = page.bodyProblem;
  return view;
}

const STATUS_MEANINGS: Record<number, string> = {
  400: 'Bad Request: the server did not accept the request as sent (a query parameter or header).',
  401: 'Unauthorized: the server refused the bearer token.',
  403: 'Forbidden: the token was accepted, but this credential may not see this resource.',
  404: 'Not Found: nothing at this path, or no such vehicle.',
  406: 'Not Acceptable: the server does not serve the version asked for in Accept.',
  408: 'Request Timeout: the server gave up waiting for the request.',
  429: 'Too Many Requests: the server limits how often you may call it.',
  500: 'Internal Server Error: the server failed; the request may be fine.',
  502: 'Bad Gateway: a proxy in front of the API got no valid answer from it.',
  503: 'Service Unavailable: the API is down or overloaded for now.',
  504: 'Gateway Timeout: a proxy in front of the API waited too long for it.',
};

const STATUS_TIPS: Record<number, string> = {
  400: 'Check the query (page, page_size, device_id) in the request URL against the error details.',
  401: 'Open the Token section: the lint findings name the claim that is wrong. Generate a new token (Mobility API: Generate Token) and compare it with the spec rule in the details.',
  403: 'Ask the provider which resources your credential may read.',
  404: 'Check the environment\'s base URL: MDS lists vehicles at {base}/vehicles, MaaS at {base}/v1alpha2/vehicles.',
  406: 'Add the header "Accept: application/vnd.mds+json;version=2.0" to the environment\'s headers.',
  429: 'Wait before the next request; fetch fewer pages at a time.',
  500: 'Try again later; if it persists, send the provider the request time and the error body.',
  502: 'Try again later; if it persists, tell the provider.',
  503: 'Try again later; if it persists, tell the provider.',
  504: 'Try again later; if it persists, tell the provider.',
};

/** What to do about each rule the local sandbox names (`rule: <id>` in a 401 body). */
const RULE_TIPS: Record<string, string> = {
  missing_bearer: 'The request carried no bearer token. Send "Authorization: Bearer <JWT>" with a freshly signed token.',
  malformed_token: 'The token is not a compact JWS. Decode it (Mobility API: Decode JWT) to see which part is broken.',
  kid_missing: 'Set the key id (kid) of the credential: it goes into the token header.',
  unknown_kid: 'The server does not know this kid. Check the key id stored with the credential; for the local sandbox, use its demo credential or add your public key to its trust file.',
  alg_not_allowed: 'Use ES256 for External Organization and IAM keys, RS256 for service-account key files; re-import the credential so its type is right.',
  bad_signature: 'The private key does not match the public key the server holds for this kid. Re-import the key that belongs to this kid.',
  iss_mismatch: 'Set the credential\'s issuer to the e-mail delivered with the key (for a service account: client_email).',
  type_not_allowed_for_api: 'The MaaS API accepts External Organization credentials only. Bind an External Organization credential to this environment.',
  sub_email_mismatch: 'A service-account token needs sub and email equal to iss; re-import the key file so the claims are built from client_email.',
  aud_mismatch: 'The audience must equal the environment\'s base URL exactly (spec 5.3). Check the base URL in the environment settings: scheme, host, path and trailing slash.',
  exp_missing: 'Every token needs exp; generate the token with this extension rather than by hand.',
  iat_missing: 'Every token needs iat; generate the token with this extension rather than by hand.',
  lifetime_out_of_range: 'Set the token lifetime between 60 and 3600 seconds.',
  expired: 'The token expired before the server saw it. Check that this computer\'s clock is right (NTP) and send a freshly generated token.',
  iat_in_future: 'This computer\'s clock is ahead of the server\'s. Sync the clock (NTP) and try again.',
  jti_missing: 'Every token needs a random UUID in jti; generate the token with this extension.',
  jti_not_uuid: 'jti must be a random UUID; generate the token with this extension.',
  jti_replayed: 'A token was sent twice. Each request needs a new token: use "Copy curl" (it signs a fresh one) instead of re-sending a copied token.',
  iat_not_increasing: 'Another client signed a later token with the same key (another machine, or a clock that went back). Wait a second and try again; do not share one key between machines whose clocks differ.',
};

const ERROR_CODE_TIPS: Record<string, string> = {
  HTTP_CONNECTION_REFUSED: 'If this is the local sandbox, start it (Mobility API: Start Local Sandbox); otherwise check the environment\'s base URL.',
  HTTP_TIMEOUT: 'Check that the server is up and reachable from here (VPN, proxy); raise the timeout in the settings for slow servers.',
  HTTP_DNS: 'Check the host name in the environment\'s base URL, and your network or VPN.',
  HTTP_TLS: 'Check the server\'s certificate; for your own test server add its CA with NODE_EXTRA_CA_CERTS.',
  HTTP_NETWORK: 'Try again; if it persists, check proxies and firewalls between here and the server.',
  HTTP_TOO_LARGE: 'Raise the response size limit in the settings, or ask for fewer vehicles per page (page_size).',
  HTTP_REDIRECT_CROSS_ORIGIN: 'If you trust the address the server redirects to, use it as the environment\'s base URL.',
  HTTP_ABORTED: 'Run the request again when you are ready.',
  CREDENTIAL_NOT_FOR_API: 'Bind a credential of a type this API accepts to the environment (the MaaS API needs External Organization).',
  BASE_URL_MISSING: 'Set the environment\'s base URL in the settings.',
  BASE_URL_INVALID: 'Fix the environment\'s base URL in the settings.',
  CLOCK_BEHIND: 'Tokens on one key must carry increasing times; check this computer\'s clock.',
};

/** `rule: x`, `spec: y` and other `name: value` lines of MDS `error_details`. */
function readDetails(details: readonly string[]): { rule?: ErrorView['rule']; facts: ErrorView['facts'] } {
  const facts: ErrorView['facts'] = [];
  let rule: ErrorView['rule'];
  const fields = new Map<string, string>();
  for (const detail of details) {
    const m = /^([a-z_][a-z0-9_ -]{0,40}):\s*(.*)$/is.exec(detail);
    if (!m) {
      facts.push({ name: '', value: detail });
      continue;
    }
    const name = m[1].trim().toLowerCase();
    if ((name === 'rule' || name === 'spec' || name === 'requirement') && !fields.has(name)) fields.set(name, m[2]);
    else facts.push({ name: m[1].trim(), value: m[2] });
  }
  const id = fields.get('rule');
  if (id !== undefined) {
    rule = { id };
    if (fields.has('spec')) rule.spec = fields.get('spec');
    if (fields.has('requirement')) rule.requirement = fields.get('requirement');
  } else {
    for (const name of ['spec', 'requirement']) if (fields.has(name)) facts.push({ name, value: fields.get(name) ?? '' });
  }
  return { rule, facts };
}

/** The error of a page that got an answer other than 2xx, or undefined for a 2xx page. */
export function pageErrorView(page: HttpExchange): ErrorView | undefined {
  if (page.ok) return undefined;
  const raw = page.token?.token;
  const view: ErrorView = {
    title: `${page.status} ${page.statusText}`.trim(),
    status: page.status,
    statusText: page.statusText,
    facts: [],
    tips: [],
  };
  const meaning = STATUS_MEANINGS[page.status];
  if (meaning) view.statusMeaning = meaning;
  if (page.mdsError) {
    const details = (page.mdsError.error_details ?? []).map((d) => scrub(d, raw));
    view.mdsError = { error: scrub(page.mdsError.error, raw), details };
    if (page.mdsError.error_description !== undefined) view.mdsError.description = scrub(page.mdsError.error_description, raw);
    const read = readDetails(details);
    if (read.rule) view.rule = read.rule;
    view.facts = read.facts;
    if (read.rule && RULE_TIPS[read.rule.id]) view.tips.push(RULE_TIPS[read.rule.id]);
  } else if (page.bodyKind === 'text' && typeof page.body === 'string') {
    view.message = scrub(page.body.slice(0, 2000), raw);
  }
  const challenge = page.responseHeaders['www-authenticate'];
  if (challenge && !view.mdsError) view.facts.push({ name: 'WWW-Authenticate', value: scrub(challenge, raw) });
  const statusTip = STATUS_TIPS[page.status];
  if (statusTip) view.tips.push(statusTip);
  if (view.tips.length === 0) view.tips.push('Look at the response body and headers below for what the server expects.');
  return view;
}

/** A failure before any answer (network, TLS, timeout, refused credential). */
export function mobilityErrorView(error: { code?: string; message: string }): ErrorView {
  const view: ErrorView = { title: 'The request got no answer', message: error.message, facts: [], tips: [] };
  if (error.code) {
    view.code = error.code;
    const tip = ERROR_CODE_TIPS[error.code];
    if (tip) view.tips.push(tip);
    if (!error.code.startsWith('HTTP_')) view.title = 'The request was not sent';
  }
  return view;
}

// ---------------------------------------------------------------------------------------------
// Vehicle table
// ---------------------------------------------------------------------------------------------

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return '';
}

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : NaN;
}

/** Milliseconds from a number (ms) or an ISO date string, NaN otherwise. */
function timeMs(value: unknown): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string') {
    const t = Date.parse(value);
    return Number.isNaN(t) ? NaN : t;
  }
  return NaN;
}

const MAX_CODES = 0xffff;

/** Interns categorical strings as small integers; code 0 is the empty value. */
class CodeBook {
  readonly names: string[] = [''];
  private readonly codes = new Map<string, number>([['', 0]]);

  code(name: string): number {
    let c = this.codes.get(name);
    if (c !== undefined) return c;
    if (this.names.length >= MAX_CODES) return this.code('(other)');
    c = this.names.length;
    this.names.push(name);
    this.codes.set(name, c);
    return c;
  }
}

/** Which shape the items have, for labels: every shape is read by the same tolerant reader. */
export function listingShape(listKey: string | undefined, items: readonly unknown[], api: 'mds' | 'maas'): ListingShape {
  if (listKey === 'vehicles_status') return 'mds-status';
  const first = items.find(isRecord);
  if (api === 'maas' || (first && 'id' in first && 'state' in first && !('device_id' in first))) return 'maas';
  if (listKey === 'vehicles' || (first && 'device_id' in first)) return 'mds-vehicles';
  return 'unknown';
}

/**
 * The vehicle table of MDS `vehicles`, MDS `vehicles_status` and MaaS listing items. Reads each
 * field where any of the shapes keeps it and never trusts a type: a malformed item gives empty
 * cells, not an exception.
 */
export function vehicleColumns(items: readonly unknown[]): VehicleColumns {
  const n = items.length;
  const types = new CodeBook();
  const propulsions = new CodeBook();
  const states = new CodeBook();
  const cols: VehicleColumns = {
    count: n,
    deviceId: new Array<string>(n),
    vehicleId: new Array<string>(n),
    providerId: new Array<string>(n),
    typeCode: new Uint16Array(n),
    typeNames: types.names,
    propulsionCode: new Uint16Array(n),
    propulsionNames: propulsions.names,
    stateCode: new Uint16Array(n),
    stateNames: states.names,
    battery: new Float64Array(n),
    lastEvent: new Float64Array(n),
    lat: new Float64Array(n),
    lng: new Float64Array(n),
  };
  for (let i = 0; i < n; i++) {
    const item = items[i];
    const v = isRecord(item) ? item : {};
    const event = isRecord(v.last_event) ? v.last_event : undefined;
    const telemetry = isRecord(v.last_telemetry) ? v.last_telemetry : undefined;
    cols.deviceId[i] = str(v.device_id) || str(v.id);
    cols.vehicleId[i] = str(v.vehicle_id);
    cols.providerId[i] = str(v.provider_id);
    cols.typeCode[i] = types.code(str(v.vehicle_type));
    cols.propulsionCode[i] = propulsions.code(Array.isArray(v.propulsion_types) ? v.propulsion_types.map(str).filter(Boolean).join(', ') : str(v.propulsion_types));
    cols.stateCode[i] = states.code(str(event?.vehicle_state) || str(v.state) || str(v.vehicle_state));
    let battery = num(telemetry?.battery_percent);
    if (Number.isNaN(battery)) battery = num(event?.battery_percent);
    if (Number.isNaN(battery)) battery = num(v.battery_percent);
    cols.battery[i] = battery;
    let when = timeMs(event?.timestamp);
    if (Number.isNaN(when)) when = timeMs(telemetry?.timestamp);
    if (Number.isNaN(when)) when = timeMs(v.last_reported ?? v.last_updated);
    cols.lastEvent[i] = when;
    const location = [telemetry?.location, event?.location, v.location].find(isRecord);
    const lat = num(location?.lat);
    const lng = num(location?.lng ?? location?.lon);
    const valid = lat >= -90 && lat <= 90 && lng >= -180 && lng <= 180;
    cols.lat[i] = valid ? lat : NaN;
    cols.lng[i] = valid ? lng : NaN;
  }
  return cols;
}

// ---------------------------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------------------------

/** The view of page `index` (0-based) of a listing. */
export function pageView(page: HttpExchange, index: number, env: Environment, now: number, itemCount: number): PageView {
  const view: PageView = {
    index,
    url: page.url,
    request: requestView(page),
    response: responseView(page),
    itemCount,
  };
  const token = pageTokenView(page, index + 1, env, now);
  if (token) view.token = token;
  const error = pageErrorView(page);
  if (error) view.error = error;
  return view;
}

function countOnPage(page: HttpExchange): number {
  if (!isRecord(page.body)) return 0;
  const list = Array.isArray(page.body.vehicles_status) ? page.body.vehicles_status : page.body.vehicles;
  return Array.isArray(list) ? list.length : 0;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

function listingLine(pages: readonly PageView[], vehicleCount: number, moreExist: boolean): string {
  const last = pages[pages.length - 1];
  const status = last ? `${last.response.status} ${last.response.statusText}`.trim() : 'no answer';
  return `${status} · ${plural(vehicleCount, 'vehicle')}${moreExist ? ' so far' : ''} · ${plural(pages.length, 'page')}`;
}

/** The whole view of a vehicles listing: pages, table columns, first error. `now` is ms. */
export function listingView(args: {
  id: string;
  environment: Environment;
  listing: VehicleListing;
  credentialLabel?: string;
  canLoadNext: boolean;
  canCopyCurl: boolean;
  now: number;
  pageOffset?: number;
}): ListingResultView {
  const { environment: env, listing } = args;
  const offset = args.pageOffset ?? 0;
  const pages = listing.pages.map((p, i) => pageView(p, offset + i, env, args.now, countOnPage(p)));
  const shape = listingShape(listing.listKey, listing.items, env.api);
  const what = shape === 'mds-status' ? 'Vehicle status' : 'Vehicles';
  const title = `${what} · ${env.name}`;
  const vehicles = vehicleColumns(listing.items);
  const summary: ResultSummary = {
    kind: 'listing',
    title,
    line: listingLine(pages, vehicles.count, !!listing.nextUrl),
    createdAt: args.now,
    environmentId: env.id,
    environmentName: env.name,
    canRunAgain: true,
    rerun: shape === 'mds-status' || /\/vehicles\/status(\/|\?|$)/.test(listing.pages[0]?.url ?? '') ? 'status' : 'vehicles',
    url: listing.pages[0]?.url,
  };
  const view: ListingResultView = {
    kind: 'listing',
    id: args.id,
    title,
    createdAt: args.now,
    environment: environmentView(env),
    shape,
    pages,
    vehicles,
    canLoadNext: args.canLoadNext && !!listing.nextUrl,
    canCopyCurl: args.canCopyCurl,
    summary,
  };
  if (args.credentialLabel) view.credentialLabel = args.credentialLabel;
  if (listing.nextUrl) view.nextUrl = listing.nextUrl;
  if (listing.stoppedBecause) view.stoppedBecause = listing.stoppedBecause;
  const failed = pages.find((p) => p.error);
  if (failed?.error) view.error = failed.error;
  return view;
}

/** The view of a request that failed before an answer. */
export function requestErrorView(args: { id: string; environment: Environment; error: { code?: string; message: string }; url?: string; now: number }): RequestErrorResultView {
  const error = mobilityErrorView(args.error);
  const title = `Request failed · ${args.environment.name}`;
  const view: RequestErrorResultView = {
    kind: 'requestError',
    id: args.id,
    title,
    createdAt: args.now,
    environment: environmentView(args.environment),
    error,
    summary: {
      kind: 'requestError',
      title,
      line: `${error.code ?? 'Error'}: ${args.error.message}`,
      createdAt: args.now,
      environmentId: args.environment.id,
      environmentName: args.environment.name,
      canRunAgain: true,
      rerun: args.url && /\/vehicles\/status(\/|\?|$)/.test(args.url) ? 'status' : 'vehicles',
    },
  };
  if (args.url) {
    view.url = args.url;
    view.summary.url = args.url;
  }
  return view;
}

/** The view of a decoded token (Generate Token, Decode JWT). The token itself stays with the caller. */
export function tokenResultView(args: {
  id: string;
  environment?: Environment;
  token: string;
  decoded: DecodedToken;
  findings: readonly LintFinding[];
  signature?: SignatureCheck;
  source: string;
  now: number;
}): TokenResultView {
  const token = tokenView({ token: args.token, decoded: args.decoded, findings: args.findings, signature: args.signature, source: args.source, alreadyUsed: false });
  const errors = args.findings.filter((f) => f.severity === 'error').length;
  const warnings = args.findings.filter((f) => f.severity === 'warning').length;
  const title = `Token · ${args.environment?.name ?? token.source}`;
  const view: TokenResultView = {
    kind: 'token',
    id: args.id,
    title,
    createdAt: args.now,
    token,
    summary: {
      kind: 'token',
      title,
      line: `${token.source} · ${errors ? plural(errors, 'error') : 'no errors'}, ${plural(warnings, 'warning')}`,
      createdAt: args.now,
      canRunAgain: false,
    },
  };
  if (args.environment) {
    view.environment = environmentView(args.environment);
    view.summary.environmentId = args.environment.id;
    view.summary.environmentName = args.environment.name;
  }
  return view;
}

/** The body of one page for the JSON tree and Raw views; Raw is cut at `maxRawChars`. */
export function bodyView(page: HttpExchange, resultId: string, pageIndex: number, maxRawChars = MAX_RAW_CHARS): BodyView {
  let raw = page.text;
  let reserialised = false;
  if (raw === undefined && page.bodyKind === 'json') {
    raw = JSON.stringify(page.body, null, 2);
    reserialised = true;
  }
  raw = scrub(raw ?? '', page.token?.token);
  const view: BodyView = {
    resultId,
    pageIndex,
    bodyKind: page.bodyKind === 'csv' ? 'text' : page.bodyKind,
    raw: raw.length > maxRawChars ? raw.slice(0, maxRawChars) : raw,
    rawTruncated: raw.length > maxRawChars,
    rawTotalChars: raw.length,
    rawReserialised: reserialised,
  };
  if (page.bodyKind === 'json') view.json = page.body;
  return view;
}
