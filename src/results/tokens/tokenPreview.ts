import { ownSecretsMasker, shortenToken } from '../../core/base';

export { shortenToken };

/** Replaces every occurrence of `secret` (a token) in `text` by its shortened form. */
export function scrub(text: string, secret: string | undefined): string {
  return ownSecretsMasker({ tokens: [secret] })(text);
}

/** What a request sent that a server may echo back: its token, and the kid in that token's header. */
export interface SentToken {
  token: string;
  header: { kid?: unknown };
}

/**
 * Server text about a request, as shown: the request's token shortened and its kid masked (a key id is a secret,
 * spec 5.7, even when a server echoes it), these exact values only (`ownSecretsMasker`).
 */
export function scrubSent(text: string, sent: SentToken | undefined): string {
  return sentMasker(sent)(text);
}

/** `scrubSent` compiled once for many texts of one request (each message of a stream). */
export function sentMasker(sent: SentToken | undefined): (text: string) => string {
  return ownSecretsMasker({ tokens: [sent?.token], kid: sent?.header.kid });
}

/** `scrubSent` for the pages of one result (each page's token, their key's kid), compiled once. */
export function pagesMasker(pages: readonly { token?: SentToken }[]): (text: string) => string {
  return ownSecretsMasker({
    tokens: pages.map((p) => p.token?.token),
    kid: pages.find((p) => p.token)?.token?.header.kid,
  });
}
