// The one place that knows the display language of this bundle's copy of @vscode/l10n. Each esbuild bundle
// (dist/extension.js, dist/resultsPanel.js, dist/webview/main.js) has its own module instance, so each one
// calls configureL10n: the extension host at activation, the results panel bundle when it loads, the webview
// with the contents the host sends it. The CLI never calls it: l10n.t then returns the English source text
// and numbers are formatted for en-US, exactly as before localisation.
import * as l10n from '@vscode/l10n';

let language = 'en-US';
let numbers: Intl.NumberFormat | undefined;
let plurals: Intl.PluralRules | undefined;

/** A translation bundle as `vscode.l10n.bundle` gives it: source text → translated text. */
export type L10nContents = Record<string, string>;

/**
 * Points this bundle's `l10n.t` at `contents` (undefined: English) and its number and plural formatting
 * at `displayLanguage` (`vscode.env.language`). A language Intl does not know falls back to en-US.
 */
export function configureL10n(args: { contents?: L10nContents; displayLanguage?: string }): void {
  l10n.config({ contents: args.contents ?? {} });
  language = intlLanguage(args.displayLanguage);
  numbers = undefined;
  plurals = undefined;
}

/** The language Intl formats for: `displayLanguage` when Intl supports it, otherwise en-US. */
function intlLanguage(displayLanguage: string | undefined): string {
  if (!displayLanguage || displayLanguage === 'en') return 'en-US';
  try {
    return Intl.NumberFormat.supportedLocalesOf([displayLanguage]).length ? displayLanguage : 'en-US';
  } catch {
    return 'en-US';
  }
}

/** The BCP 47 tag numbers and plurals are formatted for (en-US unless configured). */
export function formatLanguage(): string {
  return language;
}

/** `1,234` in the display language. */
export function localNumber(n: number): string {
  numbers ??= new Intl.NumberFormat(language);
  return numbers.format(n);
}

/** True when `n` takes the singular form in the display language (Intl.PluralRules category "one"). */
export function isSingular(n: number): boolean {
  plurals ??= new Intl.PluralRules(language);
  return plurals.select(n) === 'one';
}

/** A fixed number of decimals, without grouping, in the display language: `1.5` (en), `1,5` (de). */
export function localDecimal(n: number, digits: number): string {
  return new Intl.NumberFormat(language, {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
    useGrouping: false,
  }).format(n);
}
