/** DuckDB's errors as the analysis reports them: out of memory, out of temporary disk, bad harvest data, a query's own. */
import * as l10n from '@vscode/l10n';
import { MobilityError, errorMessage } from '../base';

/**
 * DuckDB 1.5's JSON reader numbers a malformed line one too high: `AddParseError` passes the line in its buffer plus 1,
 * and `ThrowErrorsIfPossible` adds 1 again (extension/json/json_reader.cpp); its transform errors are numbered right.
 * Returns the message with the line a user counts (the first line is 1).
 */
export function malformedJsonLineFixed(message: string): string {
  return message.replace(
    /^(Invalid Input Error: Malformed JSON in file "[^]*", at byte \d+ in line )(\d+)/,
    (_all, head: string, line: string) => `${head}${Math.max(1, Number(line) - 1)}`,
  );
}

/** The file and line a malformed-JSON message names, as a user counts lines. */
function malformedJsonPlace(message: string): { file: string; line: number; byte: number; why: string } | undefined {
  const match =
    /^Invalid Input Error: Malformed JSON in file "([^]*)", at byte (\d+) in line (\d+): ([^\n]*?)\.?\s*$/m.exec(
      malformedJsonLineFixed(message),
    );
  return match ? { file: match[1], byte: Number(match[2]), line: Number(match[3]), why: match[4] } : undefined;
}

/** What the session's limits are, to name them in an error. */
export interface SessionLimits {
  memoryLimit: string;
  tempLimit: string;
}

/** A query error as DuckDB words it (with its LINE and caret), or a data error naming the file and line. */
export function queryFailed(err: unknown, limits: SessionLimits): MobilityError {
  if (err instanceof MobilityError) return err;
  const message = errorMessage(err).replace(/^Failed to extract statements: /, '');
  if (/^Out of Memory Error/i.test(message) && /max_temp_directory_size|temporary director/i.test(message)) {
    return new MobilityError(
      'ANALYSIS_OUT_OF_DISK',
      l10n.t(
        'The analysis needed more temporary disk space than its limit of {0} ({1}). Give it more with --temp-limit (such as --temp-limit 40GB) in the CLI or the setting mobilityApi.analysis.tempLimit in VS Code, or a larger memory limit so that less spills.',
        limits.tempLimit,
        message.split('\n')[0],
      ),
      { cause: err },
    );
  }
  if (/^Out of Memory Error/i.test(message)) {
    // DuckDB's own advice (threads, insertion order) is not the user's to follow; the limit is.
    return new MobilityError(
      'ANALYSIS_OUT_OF_MEMORY',
      l10n.t(
        'The analysis needed more memory than its limit of {0} ({1}). Give it more: --memory-limit 1GB in the CLI, or the setting mobilityApi.analysis.memoryLimit in VS Code.',
        limits.memoryLimit,
        message.split('\n')[0],
      ),
      { cause: err },
    );
  }
  const place = malformedJsonPlace(message);
  if (place) {
    return new MobilityError(
      'ANALYSIS_DATA_INVALID',
      l10n.t(
        'A harvest file holds a line that is not a whole JSON item: {0}, line {1} (byte {2} of the line: {3}). Run the harvest again for that hour (remove its entry from manifest.json), or fix the file.',
        place.file,
        place.line,
        place.byte,
        place.why,
      ),
      { cause: err },
    );
  }
  if (/JSON/i.test(message) && /in file/i.test(message)) {
    return new MobilityError(
      'ANALYSIS_DATA_INVALID',
      l10n.t(
        'A harvest file holds a line that is not a whole JSON item: {0}. Run the harvest again for that hour (remove its entry from manifest.json), or fix the file.',
        message,
      ),
      { cause: err },
    );
  }
  if (/^Conversion Error/i.test(message) && /file/i.test(message)) {
    return new MobilityError(
      'ANALYSIS_DATA_INVALID',
      l10n.t('A harvest file holds a value of another type than the MDS 2.0 model says: {0}', message),
      { cause: err },
    );
  }
  return new MobilityError('ANALYSIS_QUERY_FAILED', message, { cause: err });
}
