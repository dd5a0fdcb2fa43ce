/**
 * What a failed fetch means for the user: timeouts, refused connections, DNS, TLS, resets and
 * bodies over the size cap, each as a MobilityError that says what to check.
 */
import * as l10n from '@vscode/l10n';
import { MobilityError } from '../base';

/** HTTP_TOO_LARGE for a response of `url` over `maxBytes` (and what it declared, when it did). */
export function tooLarge(url: string, maxBytes: number, declared?: number): MobilityError {
  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
  return new MobilityError(
    'HTTP_TOO_LARGE',
    l10n.t(
      'The response of {0} is larger than the {1} limit{2}; reading stopped. Raise the size limit, or ask for fewer items per page.',
      url,
      mb(maxBytes),
      declared ? ` (it declares ${mb(declared)})` : '',
    ),
  );
}

/** Turns a fetch failure into one clear message. Never includes request headers (they hold the token). */
export function describeFetchError(
  err: unknown,
  url: string,
  userSignal: AbortSignal | undefined,
  timeoutMs: number,
  duringBody = false,
): MobilityError {
  if (err instanceof MobilityError) return err;
  const host = safeHost(url);
  if (userSignal?.aborted)
    return new MobilityError('CANCELLED', l10n.t('The request to {0} was cancelled.', host), { cause: err });
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || (e?.name === 'AbortError' && !userSignal?.aborted)) {
    return new MobilityError(
      'HTTP_TIMEOUT',
      l10n.t(
        '{0} did not answer within {1}{2}. Check that the server is up, or raise the timeout.',
        host,
        formatTimeout(timeoutMs),
        duringBody ? ' (the body stopped arriving)' : '',
      ),
      { cause: err },
    );
  }
  const code = e?.cause?.code ?? (err as { code?: string })?.code ?? '';
  // A URL with user info in fetch's own message (it quotes the URL) loses it: that part is a password.
  const detail = (e?.cause?.message ?? e?.message ?? String(err)).replace(/\/\/[^/?#\s@]*@/g, '//');
  if (detail === 'bad port') {
    // The Fetch standard's "bad ports" (SMTP, IRC, discard…): fetch refuses them before connecting, whatever the server.
    return new MobilityError(
      'BASE_URL_INVALID',
      l10n.t(
        "The HTTP client (fetch) refuses to connect to port {0} of {1}: it blocks that port as unsafe, because it belongs to another protocol (the Fetch standard's list of bad ports). Run the server on another port, such as 8080, and use that port in the base URL.",
        portOf(url),
        host,
      ),
      { cause: err },
    );
  }
  if (e?.name === 'TypeError' && /includes credentials/.test(detail)) {
    return new MobilityError(
      'BASE_URL_INVALID',
      l10n.t(
        'The URL of the request to {0} holds a user name or password (the part before "@"), which fetch refuses. Remove them from the URL: credentials go in the environment\'s credential, never in a URL.',
        host,
      ),
      { cause: err },
    );
  }
  switch (code) {
    case 'ECONNREFUSED':
      return new MobilityError(
        'HTTP_CONNECTION_REFUSED',
        l10n.t(
          'Nothing accepts connections at {0} (connection refused). Check the base URL and that the server (or the local sandbox) is running.',
          host,
        ),
        { cause: err },
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new MobilityError(
        'HTTP_DNS',
        l10n.t(
          'The host name in {0} cannot be resolved ({1}). Check the base URL for typos and your network or VPN.',
          host,
          code,
        ),
        { cause: err },
      );
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return new MobilityError(
        'HTTP_TLS',
        l10n.t(
          'The TLS certificate of {0} is not trusted ({1}: self-signed or from an unknown authority). If it is your own test server, add its CA through NODE_EXTRA_CA_CERTS; otherwise do not send credentials there.',
          host,
          code,
        ),
        { cause: err },
      );
    case 'CERT_HAS_EXPIRED':
      return new MobilityError(
        'HTTP_TLS',
        l10n.t("The TLS certificate of {0} has expired ({1}). The server's operator must renew it.", host, code),
        { cause: err },
      );
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return new MobilityError(
        'HTTP_TLS',
        l10n.t(
          "The TLS certificate of {0} is for another host name ({1}). Check the base URL's host name.",
          host,
          code,
        ),
        { cause: err },
      );
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
    case 'EPIPE':
      return new MobilityError(
        'HTTP_NETWORK',
        l10n.t(
          'The connection to {0} was closed {1} ({2}). Try again; if it persists, the server or a proxy drops the request.',
          host,
          duringBody ? 'while the body was arriving' : 'before an answer came',
          code,
        ),
        { cause: err },
      );
    default:
      if (/certificate|tls|ssl/i.test(detail))
        return new MobilityError('HTTP_TLS', l10n.t('TLS with {0} failed: {1}', host, detail), { cause: err });
      return new MobilityError(
        'HTTP_NETWORK',
        l10n.t('The request to {0} failed{1}: {2}', host, code ? ` (${code})` : '', detail),
        { cause: err },
      );
  }
}

/** "30 s", or "300 ms" for a timeout under a second (which "0 s" would misstate). */
function formatTimeout(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s`;
}

/** The port of `url` as written, or the scheme's default. */
function portOf(url: string): string {
  try {
    const u = new URL(url);
    return u.port || (u.protocol === 'https:' ? '443' : '80');
  } catch {
    return '?';
  }
}

function safeHost(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the server';
  }
}
