// Small pieces of English that message templates put around names and numbers.
import * as l10n from '@vscode/l10n';
import { formatDuration } from './relativeTime';

/** Letters whose English name starts with a vowel sound ("an MDS", "an RSA", "an IAM"). */
const VOWEL_SOUND_LETTERS = new Set('AEFHILMNORSX');
/** Words that start with a vowel letter but a consonant sound ("a user", "a UUID", "a one-time"). */
const CONSONANT_SOUND_START = /^(u[bcfgklrst][aeiouy]|uu|eu|one\b|once\b|uni)/i;

/**
 * `phrase` with "a" or "an" in front, chosen by how it is spoken: "an External Organization",
 * "an IAM (deprecated)", "a Service account", "an RSA key", "a UUID". An all-capital first word is
 * read letter by letter.
 */
export function withArticle(phrase: string): string {
  return `${articleFor(phrase)} ${phrase}`;
}

/** "a" or "an" for `phrase` (see withArticle). */
export function articleFor(phrase: string): 'a' | 'an' {
  const word = /^[^\s(]+/.exec(phrase.trim())?.[0] ?? '';
  if (!word) return 'a';
  // Read letter by letter: all capitals ("RSA"), or a capital before digits or a hyphen ("X25519", "P-256").
  if (/^[A-Z](?:[A-Z]+\b|[0-9-])/.test(word) && !/^[A-Z]{2,}[a-z]/.test(word))
    return VOWEL_SOUND_LETTERS.has(word[0]) ? 'an' : 'a';
  if (CONSONANT_SOUND_START.test(word)) return 'a';
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}

/**
 * A number of seconds, with the larger units beside it only when they say something more:
 * "30 s", "1 s", "7200 s (2 h)", "90 s (1 min)".
 */
export function secondsWithSpan(seconds: number): string {
  const span = formatDuration(seconds);
  return span === l10n.t('{0} s', seconds) || Math.abs(seconds) < 60
    ? l10n.t('{0} s', seconds)
    : l10n.t('{0} s ({1})', seconds, span);
}
