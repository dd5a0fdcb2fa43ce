/**
 * What a failed fetch means for the user: timeouts, refused connections, DNS, TLS, resets and
 * bodies over the size cap, each as a MobilityError that says what to check.
 */
import { MobilityError } from './errors';

/** HTTP_TOO_LARGE for a response of `url` over `maxBytes` (and what it declared, when it did). */
export function tooLarge(url: string, maxBytes: number, declared?: number): MobilityError {
  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
  return new MobilityError(
    'HTTP_TOO_LARGE',
    `The response of ${url} is larger than the ${mb(maxBytes)} limit${declared ? ` (it declares ${mb(declared)})` : ''}; reading stopped. Raise the size limit, or ask for fewer items per page.`,
  );
}

/** Turns a fetch failure into one clear message. Never includes request headers (they hold the token). */
export function describeFetchError(err: unknown, url: string, userSignal: AbortSignal | undefined, timeoutMs: number, duringBody = false): MobilityError {
  if (err instanceof MobilityError) return err;
  const host = safeHost(url);
  if (userSignal?.aborted) return new MobilityError('HTTP_ABORTED', `The request to ${host} was cancelled.`, { cause: err });
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || (e?.name === 'AbortError' && !userSignal?.aborted)) {
    return new MobilityError('HTTP_TIMEOUT', `${host} did not answer within ${formatTimeout(timeoutMs)}${duringBody ? ' (the body stopped arriving)' : ''}. Check that the server is up, or raise the timeout.`, { cause: err });
  }
  const code = e?.cause?.code ?? (err as { code?: string })?.code ?? '';
  const detail = e?.cause?.message ?? e?.message ?? String(err);
  switch (code) {
    case 'ECONNREFUSED':
      return new MobilityError('HTTP_CONNECTION_REFUSED', `Nothing accepts connections at ${host} (connection refused). Check the base URL and that the server (or the local sandbox) is running.`, { cause: err });
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new MobilityError('HTTP_DNS', `The host name in ${host} cannot be resolved (${code}). Check the base URL for typos and your network or VPN.`, { cause: err });
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return new MobilityError('HTTP_TLS', `The TLS certificate of ${host} is not trusted (${code}: self-signed or from an unknown authority). If it is your own test server, add its CA through NODE_EXTRA_CA_CERTS; otherwise do not send credentials there.`, { cause: err });
    case 'CERT_HAS_EXPIRED':
      return new MobilityError('HTTP_TLS', `The TLS certificate of ${host} has expired (${code}). The server's operator must renew it.`, { cause: err });
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return new MobilityError('HTTP_TLS', `The TLS certificate of ${host} is for another host name (${code}). Check the base URL's host name.`, { cause: err });
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
    case 'EPIPE':
      return new MobilityError('HTTP_NETWORK', `The connection to ${host} was closed ${duringBody ? 'while the body was arriving' : 'before an answer came'} (${code}). Try again; if it persists, the server or a proxy drops the request.`, { cause: err });
    default:
      if (/certificate|tls|ssl/i.test(detail)) return new MobilityError('HTTP_TLS', `TLS with ${host} failed: ${detail}`, { cause: err });
      return new MobilityError('HTTP_NETWORK', `The request to ${host} failed${code ? ` (${code})` : ''}: ${detail}`, { cause: err });
  }
}

/** "30 s", or "300 ms" for a timeout under a second (which "0 s" would misstate). */
function formatTimeout(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s`;
}

function safeHost(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the server';
  }
}
