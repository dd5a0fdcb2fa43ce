/** The first 10 and last 6 characters of a token; short texts give away at most 4 characters. */
export function shortenToken(token: string): string {
  if (token.length <= 24) return `${token.slice(0, 4)}…`;
  return `${token.slice(0, 10)}…${token.slice(-6)}`;
}

/** Replaces every occurrence of `secret` in `text` by its shortened form. */
export function scrub(text: string, secret: string | undefined): string {
  if (!secret || secret.length < 8 || !text.includes(secret)) return text;
  return text.split(secret).join(shortenToken(secret));
}
