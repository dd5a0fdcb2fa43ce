// Counts, plurals and sizes as the panel, the host and the CLI print them: one place each (src/shared, so that
// the webview bundle uses the same functions). Numbers and the singular/plural choice go through Intl in the
// display language (src/shared/l10n.ts); the nouns through l10n.t (the CLI, never configured, stays English).
import * as l10n from '@vscode/l10n';
import { isSingular, localDecimal, localNumber } from './l10n';

/** `1,234`. */
export function formatCount(n: number): string {
  return localNumber(n);
}

/** `1 vehicle`, `1,234 vehicles`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return l10n.t('{0} {1}', formatCount(n), nounText(isSingular(n) ? one : many));
}

/** `512 B`, `1.5 KB`, `2.0 MB`. */
export function formatBytes(n: number): string {
  return n < 1024
    ? l10n.t('{0} B', n)
    : n < 1024 * 1024
      ? l10n.t('{0} KB', localDecimal(n / 1024, 1))
      : l10n.t('{0} MB', localDecimal(n / 1024 / 1024, 1));
}

/**
 * The nouns the views count, each a literal l10n.t call so that `npm run l10n` extracts it. A noun not listed
 * (one made from a server's key) is data and stays as it is.
 */
const NOUNS: Record<string, () => string> = {
  method: () => l10n.t('method'),
  methods: () => l10n.t('methods'),
  vehicle: () => l10n.t('vehicle'),
  vehicles: () => l10n.t('vehicles'),
  'vehicle status': () => l10n.t('vehicle status'),
  'vehicle statuses': () => l10n.t('vehicle statuses'),
  page: () => l10n.t('page'),
  pages: () => l10n.t('pages'),
  message: () => l10n.t('message'),
  messages: () => l10n.t('messages'),
  item: () => l10n.t('item'),
  items: () => l10n.t('items'),
  finding: () => l10n.t('finding'),
  findings: () => l10n.t('findings'),
  'further finding': () => l10n.t('further finding'),
  'further findings': () => l10n.t('further findings'),
  error: () => l10n.t('error'),
  errors: () => l10n.t('errors'),
  warning: () => l10n.t('warning'),
  warnings: () => l10n.t('warnings'),
  hour: () => l10n.t('hour'),
  hours: () => l10n.t('hours'),
  assertion: () => l10n.t('assertion'),
  assertions: () => l10n.t('assertions'),
  request: () => l10n.t('request'),
  requests: () => l10n.t('requests'),
  position: () => l10n.t('position'),
  positions: () => l10n.t('positions'),
  trip: () => l10n.t('trip'),
  trips: () => l10n.t('trips'),
  event: () => l10n.t('event'),
  events: () => l10n.t('events'),
  'telemetry point': () => l10n.t('telemetry point'),
  'telemetry points': () => l10n.t('telemetry points'),
  geography: () => l10n.t('geography'),
  geographies: () => l10n.t('geographies'),
  stop: () => l10n.t('stop'),
  stops: () => l10n.t('stops'),
  line: () => l10n.t('line'),
  lines: () => l10n.t('lines'),
  row: () => l10n.t('row'),
  rows: () => l10n.t('rows'),
  key: () => l10n.t('key'),
  keys: () => l10n.t('keys'),
  'dot-separated part': () => l10n.t('dot-separated part'),
  'dot-separated parts': () => l10n.t('dot-separated parts'),
};

/** A counted noun in the display language ("vehicles"), or `word` itself when it is not one of ours. */
export function nounText(word: string): string {
  return Object.hasOwn(NOUNS, word) ? NOUNS[word]() : word;
}
