/** Longer log text is cut first, so that a hostile message cannot make redaction slow. */
export const MAX_LOG_TEXT = 10_000;

/**
 * Removes secrets from text that is about to be logged: compact JWTs, PEM blocks, JWK private
 * members and bearer credentials.
 */
export function redactSecrets(text: string): string {
  const bounded = text.length > MAX_LOG_TEXT ? `${text.slice(0, MAX_LOG_TEXT)}… (${text.length - MAX_LOG_TEXT} more characters not logged)` : text;
  return bounded
    .replace(/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g, '<private key redacted>')
    .replace(/\beyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, '<token redacted>')
    .replace(/("(?:d|p|q|dp|dq|qi|k|private_key)"\s*:\s*")[^"]*"/g, '$1<redacted>"')
    .replace(/(bearer\s+)[^\s"',;]+/gi, '$1<redacted>');
}
