// What an error means and what to do about it: the status meanings, the tips per status, per rule
// the sandbox names and per core error code, read from a page or an error. Used by the panel and the CLI.
import * as l10n from '@vscode/l10n';
import type { HttpExchange } from '../../core/http';
import type { AuthRuleId } from '../../core/auth';
import { AUTH_RULES } from '../../core/auth';
import type { ErrorCode } from '../../shared/errorCodes';
import type { ErrorView } from '../../shared/listingViews';
import type { RefusalContext } from './refusalView';
import { explainRefusal } from './refusalView';
import { scrubSent } from './tokenPreview';

// Functions, not constants: the strings are read when used, after this bundle's l10n is configured.
const STATUS_MEANINGS = (): Record<number, string> => ({
  400: l10n.t('Bad Request: the server did not accept the request as sent (a query parameter or header).'),
  401: l10n.t('Unauthorized: the server refused the bearer token.'),
  403: l10n.t('Forbidden: the token was accepted, but this credential may not see this resource.'),
  404: l10n.t('Not Found: nothing at this path, or no such vehicle.'),
  406: l10n.t('Not Acceptable: the server does not serve the version asked for in Accept.'),
  408: l10n.t('Request Timeout: the server gave up waiting for the request.'),
  429: l10n.t('Too Many Requests: the server limits how often you may call it.'),
  500: l10n.t('Internal Server Error: the server failed; the request may be fine.'),
  502: l10n.t('Bad Gateway: a proxy in front of the API got no valid answer from it.'),
  503: l10n.t('Service Unavailable: the API is down or overloaded for now.'),
  504: l10n.t('Gateway Timeout: a proxy in front of the API waited too long for it.'),
});

const STATUS_TIPS = (): Record<number, string> => ({
  400: l10n.t('Check the query (page, page_size, device_id) in the request URL against the error details.'),
  401: l10n.t(
    'Open the Token section: the lint findings name the claim that is wrong. Generate a new token (Mobility API: Generate Token) and compare it with the spec rule in the details.',
  ),
  403: l10n.t('Ask the provider which resources your credential may read.'),
  404: l10n.t(
    "Check the environment's base URL: MDS lists vehicles at {base}/vehicles, MaaS at {base}/v1alpha2/vehicles.",
    { base: '{base}' },
  ),
  406: l10n.t('Add the header "Accept: application/vnd.mds+json;version=2.0" to the environment\'s headers.'),
  429: l10n.t('Wait before the next request; fetch fewer pages at a time.'),
  500: l10n.t('Try again later; if it persists, send the provider the request time and the error body.'),
  502: l10n.t('Try again later; if it persists, tell the provider.'),
  503: l10n.t('Try again later; if it persists, tell the provider.'),
  504: l10n.t('Try again later; if it persists, tell the provider.'),
});

/** What to do about each rule the local sandbox names (`rule: <id>` in a 401 body); typed so a renamed rule breaks the build. */
export const RULE_TIPS = (): Readonly<Record<AuthRuleId, string>> => ({
  missing_bearer: l10n.t(
    'The request carried no bearer token. Send "Authorization: Bearer <JWT>" with a freshly signed token.',
  ),
  malformed_token: l10n.t(
    'The token is not a compact JWS. Decode it (Mobility API: Decode JWT) to see which part is broken.',
  ),
  kid_missing: l10n.t('Set the key id (kid) of the credential: it goes into the token header.'),
  unknown_kid: l10n.t(
    'The server does not know this kid. Check the key id stored with the credential; for the local sandbox, use its demo credential or add your public key to its trust file.',
  ),
  alg_not_allowed: l10n.t(
    'Use ES256 for External Organization and IAM keys, RS256 for service-account key files; re-import the credential so its type is right.',
  ),
  bad_signature: l10n.t(
    'The private key does not match the public key the server holds for this kid. Re-import the key that belongs to this kid.',
  ),
  iss_mismatch: l10n.t(
    "Set the credential's issuer to the e-mail delivered with the key (for a service account: client_email).",
  ),
  type_not_allowed_for_api: l10n.t(
    'The MaaS API accepts External Organization credentials only. Bind an External Organization credential to this environment.',
  ),
  sub_email_mismatch: l10n.t(
    'A service-account token needs sub and email equal to iss; re-import the key file so the claims are built from client_email.',
  ),
  aud_mismatch: l10n.t(
    "The audience must equal the environment's base URL exactly (spec 5.3). Check the base URL in the environment settings: scheme, host, path and trailing slash.",
  ),
  exp_missing: l10n.t('Every token needs exp; generate the token with this extension rather than by hand.'),
  iat_missing: l10n.t('Every token needs iat; generate the token with this extension rather than by hand.'),
  lifetime_out_of_range: l10n.t('Set the token lifetime between 60 and 3600 seconds.'),
  expired: l10n.t(
    "The token expired before the server saw it. Check that this computer's clock is right (NTP) and send a freshly generated token.",
  ),
  iat_in_future: l10n.t("This computer's clock is ahead of the server's. Sync the clock (NTP) and try again."),
  jti_missing: l10n.t('Every token needs a random UUID in jti; generate the token with this extension.'),
  nbf_in_future: l10n.t(
    "The token is not valid yet for the server: leave nbf out (tokens signed here have none), or check that this computer's clock is not ahead of the server's (NTP).",
  ),
  jti_not_uuid: l10n.t('jti must be a random UUID; generate the token with this extension.'),
  jti_not_random: l10n.t(
    'jti must be a random (version 4) UUID such as crypto.randomUUID() makes; generate the token with this extension.',
  ),
  jti_replayed: l10n.t(
    'A token was sent twice. Each request needs a new token: use "Copy curl" (it signs a fresh one) instead of re-sending a copied token.',
  ),
  iat_not_increasing: l10n.t(
    'Another client signed a later token with the same key (another machine, or a clock that went back). Wait a second and try again; do not share one key between machines whose clocks differ.',
  ),
});

const ERROR_CODE_TIPS = (): Readonly<Partial<Record<ErrorCode, string>>> => ({
  HTTP_CONNECTION_REFUSED: l10n.t(
    "If this is the local sandbox, start it (Mobility API: Start Local Sandbox); otherwise check the environment's base URL.",
  ),
  HTTP_TIMEOUT: l10n.t(
    'Check that the server is up and reachable from here (VPN, proxy); raise the timeout in the settings for slow servers.',
  ),
  HTTP_DNS: l10n.t("Check the host name in the environment's base URL, and your network or VPN."),
  HTTP_TLS: l10n.t("Check the server's certificate; for your own test server add its CA with NODE_EXTRA_CA_CERTS."),
  HTTP_NETWORK: l10n.t('Try again; if it persists, check proxies and firewalls between here and the server.'),
  HTTP_TOO_LARGE: l10n.t(
    'Raise the response size limit in the settings, or ask for fewer vehicles per page (page_size).',
  ),
  HTTP_REDIRECT_CROSS_ORIGIN: l10n.t(
    "If you trust the address the server redirects to, use it as the environment's base URL.",
  ),
  CANCELLED: l10n.t('Run the request again when you are ready.'),
  CREDENTIAL_NOT_FOR_API: l10n.t(
    'Bind a credential of a type this API accepts to the environment (the MaaS API needs External Organization).',
  ),
  BASE_URL_MISSING: l10n.t("Set the environment's base URL in the settings."),
  BASE_URL_INVALID: l10n.t("Fix the environment's base URL in the settings."),
  CLOCK_BEHIND: l10n.t("Tokens on one key must carry increasing times; check this computer's clock."),
});

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
    for (const name of ['spec', 'requirement'])
      if (fields.has(name)) facts.push({ name, value: fields.get(name) ?? '' });
  }
  return { rule, facts };
}

/** Whether a `rule: <id>` a server names is one of the sandbox's rules. */
function isAuthRuleId(id: string): id is AuthRuleId {
  return Object.prototype.hasOwnProperty.call(AUTH_RULES, id);
}

/**
 * The error of a page that got an answer other than 2xx, or undefined for a 2xx page. For 401 and
 * 403 it carries the explanation of the refusal, checked with what `refusal` tells (audience, API…).
 */
export function pageErrorView(page: HttpExchange, refusal?: RefusalContext): ErrorView | undefined {
  if (page.ok) return undefined;
  const sent = page.token;
  const view: ErrorView = {
    title: `${page.status} ${page.statusText}`.trim(),
    status: page.status,
    statusText: page.statusText,
    facts: [],
    tips: [],
  };
  const meaning = STATUS_MEANINGS()[page.status];
  if (meaning) view.statusMeaning = meaning;
  if (page.mdsError) {
    const details = (page.mdsError.error_details ?? []).map((d) => scrubSent(d, sent));
    view.mdsError = { error: scrubSent(page.mdsError.error, sent), details };
    if (page.mdsError.error_description !== undefined)
      view.mdsError.description = scrubSent(page.mdsError.error_description, sent);
    const read = readDetails(details);
    if (read.rule) view.rule = read.rule;
    view.facts = read.facts;
    if (read.rule && isAuthRuleId(read.rule.id)) view.tips.push(RULE_TIPS()[read.rule.id]);
  } else if (page.bodyKind === 'text' && typeof page.body === 'string') {
    view.message = scrubSent(page.body.slice(0, 2000), sent);
  }
  const challenge = page.responseHeaders['www-authenticate'];
  if (challenge && !view.mdsError) view.facts.push({ name: 'WWW-Authenticate', value: scrubSent(challenge, sent) });
  const statusTip = STATUS_TIPS()[page.status];
  if (statusTip) view.tips.push(statusTip);
  if (view.tips.length === 0)
    view.tips.push(l10n.t('Look at the response body and headers below for what the server expects.'));
  const explanation = explainRefusal(page, refusal);
  if (explanation) view.explanation = explanation;
  return view;
}

/** A failure before any answer (network, TLS, timeout, refused credential). */
export function mobilityErrorView(error: { code?: ErrorCode; message: string }): ErrorView {
  const view: ErrorView = { title: l10n.t('The request got no answer'), message: error.message, facts: [], tips: [] };
  if (error.code) {
    view.code = error.code;
    const tip = ERROR_CODE_TIPS()[error.code];
    if (tip) view.tips.push(tip);
    if (!error.code.startsWith('HTTP_')) view.title = l10n.t('The request was not sent');
  }
  return view;
}
