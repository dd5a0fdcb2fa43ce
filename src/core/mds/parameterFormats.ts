/**
 * The value formats of MDS 2.0 request parameters (general-information.md, data-types.md and
 * mds-openapi `models/data-types/*.yaml`), each with the words users read in messages, a checker
 * that normalises a value or says what is wrong with it, and the defaults the catalogue offers.
 */
import * as l10n from '@vscode/l10n';
import { HOUR_MS, parseUtcHour } from './utcHour';

/** How a parameter's value is written. */
export type ParameterFormat = 'utc_hour' | 'epoch_ms' | 'uuid' | 'year_month';

/** What users read about a format: its name in "is not a ...", how to write it, and an example. */
export interface FormatDescription {
  noun: string;
  description: string;
  /** How to write it without an example (a prompt that already quotes the default value). */
  shape: string;
  example: string;
}

/**
 * The earliest timestamp mds-openapi allows (`models/data-types/timestamp.yaml`: `minimum`,
 * 2018-01-01T00:00:00Z). It also tells seconds from milliseconds: any time after 2001 in seconds is
 * below it.
 */
export const MIN_MDS_TIMESTAMP = 1_514_764_800_000;

/** Two weeks in ms: `/events/recent` serves no event older than that (provider/README.md). */
export const TWO_WEEKS_MS = 14 * 24 * HOUR_MS;

export const PARAMETER_FORMATS: Readonly<Record<ParameterFormat, FormatDescription>> = {
  // Getters for the words, so that each read is translated with the bundle configured by then, not at load.
  utc_hour: {
    get noun() {
      return l10n.t('a UTC hour');
    },
    get description() {
      return l10n.t('YYYY-MM-DDTHH (UTC), for example {0}', '2024-11-05T14');
    },
    get shape() {
      return l10n.t('YYYY-MM-DDTHH (UTC)');
    },
    example: '2024-11-05T14',
  },
  epoch_ms: {
    get noun() {
      return l10n.t('a timestamp');
    },
    get description() {
      return l10n.t(
        'integer milliseconds since the Unix epoch (UTC), for example {0} for {1}',
        '1730815200000',
        '2024-11-05T14:00:00Z',
      );
    },
    get shape() {
      return l10n.t('integer milliseconds since the Unix epoch (UTC)');
    },
    example: '1730815200000',
  },
  uuid: {
    get noun() {
      return l10n.t('a UUID');
    },
    get description() {
      return l10n.t('8-4-4-4-12 hexadecimal digits, for example {0}', '3c9604d6-b5ee-11e8-96f8-529269fb1459');
    },
    get shape() {
      return l10n.t('8-4-4-4-12 hexadecimal digits');
    },
    example: '3c9604d6-b5ee-11e8-96f8-529269fb1459',
  },
  year_month: {
    get noun() {
      return l10n.t('a month');
    },
    get description() {
      return l10n.t('YYYY-MM (UTC), for example {0}', '2024-10');
    },
    get shape() {
      return l10n.t('YYYY-MM (UTC)');
    },
    example: '2024-10',
  },
};

/** A value that passed its format check, normalised, or what is wrong with it. */
export type ValueCheck = { ok: true; value: string } | { ok: false; problem: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const YEAR_MONTH = /^(\d{4})-(\d{2})$/;

/**
 * Checks `input` as a value of parameter `name` written in `format`. The problem names the
 * parameter, shows the value (quoted and escaped, cut when long) and the format expected, e.g.
 * `end_time "2025-11-5T7" is not a UTC hour: use YYYY-MM-DDTHH (UTC), for example 2024-11-05T14`.
 * Normalises: trims, writes UUIDs in lowercase (RFC 4122 reads them without case, MDS writes them
 * lowercase), and drops `.csv` after a month (the report's file name).
 */
export function checkParameterValue(name: string, format: ParameterFormat, input: string | number): ValueCheck {
  const text = typeof input === 'number' ? String(input) : input.trim();
  const { noun, description } = PARAMETER_FORMATS[format];
  const wrong = (why = l10n.t('is not {0}', noun)): ValueCheck => ({
    ok: false,
    problem: l10n.t('{0} {1} {2}: use {3}', name, showValue(text), why, description),
  });
  switch (format) {
    case 'utc_hour': {
      const ms = parseUtcHour(text);
      if (ms === undefined) return wrong();
      if (ms < 0) return wrong(l10n.t('is before 1970, where MDS hours start'));
      return { ok: true, value: text };
    }
    case 'epoch_ms': {
      if (!/^\d{1,16}$/.test(text) || !Number.isSafeInteger(Number(text))) {
        return wrong(
          /^\d+\.\d+$/.test(text) ? l10n.t('is not a whole number of milliseconds') : l10n.t('is not {0}', noun),
        );
      }
      const ms = Number(text);
      if (ms < MIN_MDS_TIMESTAMP) {
        return wrong(
          ms >= 1e9 && ms < 1e11
            ? l10n.t('looks like seconds, not milliseconds (multiply by 1000)')
            : l10n.t('is before 2018-01-01, the earliest MDS timestamp'),
        );
      }
      return { ok: true, value: String(ms) };
    }
    case 'uuid': {
      const lower = text.toLowerCase();
      return UUID.test(lower) ? { ok: true, value: lower } : wrong();
    }
    case 'year_month': {
      const month = text.toLowerCase().endsWith('.csv') ? text.slice(0, -4) : text;
      const match = YEAR_MONTH.exec(month);
      if (!match) return wrong();
      const [year, mm] = [Number(match[1]), Number(match[2])];
      if (mm < 1 || mm > 12) return wrong(l10n.t('has no month {0}', match[2]));
      if (year < 1970) return wrong(l10n.t('is before 1970'));
      return { ok: true, value: month };
    }
  }
}

/** `YYYY-MM` of the last month that has ended at `nowMs` (UTC): the month before the current one. */
export function lastCompleteUtcMonth(nowMs: number): string {
  const now = new Date(nowMs);
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)).toISOString().slice(0, 7);
}

/** `1730815200000 (2024-11-05T14:00:00.000Z)`: a timestamp with its UTC reading, for messages. */
export function describeTimestamp(ms: number): string {
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? `${ms} (${new Date(ms).toISOString()})` : String(ms);
}

/** The value as shown in messages: JSON-quoted (so control characters are escaped) and cut at 60 characters. */
function showValue(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}
