import type { HttpExchange } from '../../core/http';
import type { ApiKind, Environment } from '../../core/environment';
import { API_LABELS, normaliseBaseUrl } from '../../core/environment';
import type { CatalogueEndpoint } from '../../core/mds';
import type { Credential, DecodedToken, LintFinding, SignatureCheck } from '../../core/auth';
import { stringifyAsWritten } from '../../core/auth';
import { clockSkewOf, keyIdDigest } from '../../core/clock';
import type { FileClockStore } from '../../core/clock';
import { scrubSent } from '../../results/tokens/tokenPreview';
import { explainRefusal, refusalLines } from '../../results/tokens/refusalView';
import type { CliIo } from './cliIo';

/**
 * Control characters that a terminal may act on: C0 (but tab and newline), DEL, C1 (U+009B is a
 * CSI on its own), and the bidirectional marks and overrides that reorder what a reader sees.
 */
/* eslint-disable no-control-regex -- matching control characters is the point */
const TERMINAL_CONTROLS =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/* eslint-enable no-control-regex */

/**
 * Text as it may reach a terminal: every control character becomes a visible `\uXXXX`. In JSON
 * output such characters can only stand inside strings, where `\uXXXX` means the same character,
 * so JSON stays valid and equal. Everything the CLI prints goes through this (see `runCli`).
 */
export function escapeForTerminal(text: string): string {
  return text.replace(TERMINAL_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The text output of `decode`: header, payload, times, signature and findings. */
export function formatDecoded(
  token: DecodedToken,
  findings: LintFinding[],
  signature: SignatureCheck | undefined,
): string {
  // Numbers as the token writes them (`"exp": 1e400`), where JSON.stringify would show what JSON.parse made of them (`null`).
  const numbers = (part: 'header' | 'payload') => (token.writtenNumbers ?? []).filter((n) => n.part === part);
  const lines = [
    'Header',
    indent(stringifyAsWritten(token.header, numbers('header'), 2)),
    'Payload',
    indent(stringifyAsWritten(token.payload, numbers('payload'), 2)),
    'Times',
  ];
  for (const name of ['iat', 'nbf', 'exp'] as const) {
    const t = token.times[name];
    if (t) lines.push(`  ${name.padEnd(4)} ${t.iso}  (${t.relative})`);
  }
  if (token.lifetimeSeconds !== undefined) lines.push(`  lifetime ${token.lifetimeSeconds} s`);
  if (!signature) lines.push('Signature: not verified (give --public-key to check it)');
  else if (signature.state === 'verified') lines.push('Signature: verified');
  else lines.push(`Signature: FAILED: ${signature.reason}`);
  lines.push(findings.length ? 'Findings' : 'Findings: none');
  for (const f of findings) lines.push(`  ${f.severity.padEnd(7)} [spec ${f.rule}] ${f.message}`);
  return lines.join('\n');
}

/** One line: status, the MDS error body with the rule a sandbox names, and what to try. */
export function describeFailure(page: HttpExchange): string {
  // The server's words, with the request's kid masked should it echo it (spec 5.7).
  const said = (text: string, max: number) => fromServer(scrubSent(text, page.token), max);
  const parts = [`${page.status} ${said(page.statusText, 80)} from ${page.url}`.replace(/ {2}/, ' ')];
  if (page.mdsError) {
    const { error, error_description: description, error_details: details } = page.mdsError;
    parts.push(said(`${error}${description ? `: ${description}` : ''}`, 300));
    if (details?.length)
      parts.push(
        `(${details
          .slice(0, 5)
          .map((d) => said(d, 200))
          .join('; ')}${details.length > 5 ? `; ${details.length - 5} more` : ''})`,
      );
  } else if (page.bodyProblem) {
    parts.push(`— ${said(page.bodyProblem, 300)}`);
  } else if (page.bodyKind === 'text' && typeof page.body === 'string') {
    parts.push(said(page.body, 200));
  }
  const hint: Record<number, string> = {
    401: 'The token was refused: run `mobility-api decode` on a token from the same flags to see what is wrong.',
    403: 'The credential is valid but not allowed here: check the environment and the credential type.',
    404: 'Check the base URL and the API (--api).',
    406: 'The server does not support the requested version: check the Accept header.',
    429: 'Too many requests: wait and try again.',
    500: 'The server failed to answer: try again later, and if it persists, tell the API provider the time of the request.',
    502: 'A gateway in front of the server failed: try again later.',
    503: 'The service is unavailable for now: try again later.',
    504: 'A gateway in front of the server timed out: try again later.',
  };
  if (hint[page.status]) parts.push(`— ${hint[page.status]}`);
  if (page.retryAfterSeconds !== undefined)
    parts.push(`The server asks to wait ${page.retryAfterSeconds} s before trying again (Retry-After).`);
  return parts.join(' ');
}

/**
 * After a 401 or 403: the likely cause and the evidence (see `explainRefusal`), each line made safe
 * for a terminal; the key's mark is read from the shared clock when `store` is given.
 */
export async function formatRefusal(
  page: HttpExchange,
  environment: Environment,
  credential: Credential | undefined,
  store?: Pick<FileClockStore, 'readMarks'>,
): Promise<string | undefined> {
  if (page.status !== 401 && page.status !== 403) return undefined;
  let keyMark: number | undefined;
  const kid = page.token?.header.kid;
  if (store && kid !== undefined) {
    // Best effort: an unreadable state folder leaves the ordering evidence unknown, it does not fail the run.
    keyMark = await store.readMarks().then(
      (marks) => marks[keyIdDigest(kid)],
      () => undefined,
    );
  }
  const explanation = explainRefusal(page, {
    audience: normaliseBaseUrl(environment.baseUrl, environment.name),
    api: environment.api,
    credentialType: credential?.type,
    keyMark,
    now: Date.now(),
  });
  return explanation
    ? refusalLines(explanation)
        .map((line) => fromServerLine(line))
        .join('\n')
    : undefined;
}

/** A warning when this computer's clock is off the server's by more than a few seconds. */
export function clockWarning(page: HttpExchange | undefined): string | undefined {
  const skew = page ? clockSkewOf(page) : undefined;
  return skew ? `warning: ${skew.message}` : undefined;
}

/** Prints the clock warning and, after a 401 or 403, the explanation, on stderr. */
export async function printRefusalAndClock(
  page: HttpExchange | undefined,
  environment: Environment,
  credential: Credential | undefined,
  io: CliIo,
  store?: Pick<FileClockStore, 'readMarks'>,
): Promise<void> {
  if (!page) return;
  const warning = clockWarning(page);
  if (warning) io.err(`mobility-api: ${warning}`);
  const refusal = await formatRefusal(page, environment, credential, store);
  if (refusal) io.err(refusal);
}

/** One line of an explanation: control characters and tokens out, length kept. */
function fromServerLine(text: string): string {
  return `${/^ */.exec(text)?.[0] ?? ''}${fromServer(text, 2000)}`;
}

/**
 * Server-sent text as it may be printed: one line, at most `max` characters, without control characters (a hostile
 * server could otherwise send terminal escape sequences). Otherwise as the server sent it: the caller hides our own
 * secrets in it by value (`scrubSent` with the request's token and kid) where the server may echo them.
 */
export function fromServer(text: string, max: number): string {
  const line = text
    .replace(/\s+/g, ' ')
    .replace(/[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu, '?')
    .trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** The catalogue of one API, one endpoint per line with its parameters and their defaults. */
export function formatCatalogue(api: ApiKind, endpoints: readonly CatalogueEndpoint[], nowMs: number): string {
  const lines = [`${API_LABELS[api]}:`];
  for (const e of endpoints) {
    const flags = [
      e.itemsKey ? `items in "${e.itemsKey}"` : e.body === 'csv' ? 'CSV' : '',
      e.paginates ? 'paginates' : '',
      e.hourEndpoint ? 'one UTC hour per request' : '',
      e.beta ? 'beta' : '',
    ]
      .filter(Boolean)
      .join(', ');
    lines.push(`  ${e.id.padEnd(18)} GET ${e.pathTemplate}${flags ? `  (${flags})` : ''}`);
    for (const p of e.parameters) {
      const fallback = p.defaultValue
        ? `; default ${p.defaultValue(nowMs)} (${p.defaultDescription ?? 'default'})`
        : '';
      lines.push(
        `  ${''.padEnd(18)}   ${p.required ? 'required' : 'optional'} ${p.in} ${p.name}: ${p.formatDescription}${fallback}`,
      );
    }
  }
  return lines.join('\n');
}

/** A query's answer as an aligned text table (nested values as JSON), with its row count. */
export function formatQueryAnswer(answer: { columns: { name: string }[]; rows: Record<string, unknown>[] }): string {
  const cell = (value: unknown): string =>
    value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  const names = answer.columns.map((c) => c.name);
  const cells = answer.rows.map((row) => names.map((name) => cell(row[name])));
  const widths = names.map((name, i) => Math.max(name.length, ...cells.map((r) => r[i].length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [
    line(names),
    line(widths.map((w) => '-'.repeat(w))),
    ...cells.map(line),
    `(${answer.rows.length} ${answer.rows.length === 1 ? 'row' : 'rows'})`,
  ].join('\n');
}

export function indent(text: string): string {
  return text.replace(/^/gm, '  ');
}
