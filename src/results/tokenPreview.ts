import { maskKidIn } from '../core/base';

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

/** What a request sent that a server may echo back: its token, and the kid in that token's header. */
export interface SentToken {
  token: string;
  header: { kid?: unknown };
}

/**
 * Server text about a request, as shown: the request's token shortened and its kid masked (a key id
 * is a secret, spec 5.7, even when a server echoes it). A kid under 8 characters is left alone: it
 * would mask ordinary words.
 */
export function scrubSent(text: string, sent: SentToken | undefined): string {
  return maskKidIn(scrub(text, sent?.token), sent?.header.kid);
}
