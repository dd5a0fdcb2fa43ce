// Finding a request of a request file by its name or its position, and naming a file's requests in a message.
import * as l10n from '@vscode/l10n';
import { MobilityError } from '../base';
import { formatCount } from '../../shared/format';
import type { FileRequest, RequestFile } from './requestFile';

/** The request named `selector`, or at 1-based position `selector`. */
export function findFileRequest(file: RequestFile, selector: string): FileRequest {
  const byName = file.requests.find((r) => r.name === selector);
  if (byName) return byName;
  if (/^\d+$/.test(selector)) {
    const byIndex = file.requests[Number(selector) - 1];
    if (byIndex) return byIndex;
  }
  const names = file.requests.length
    ? listFileRequests(file, (r) => (r.name ? `${r.index} (${r.name})` : String(r.index)))
    : l10n.t('none');
  throw new MobilityError('USAGE', l10n.t('The file has no request "{0}". Its requests: {1}.', selector, names));
}

/** How many requests a message names before it counts the rest: a file may hold thousands. */
const LISTED_REQUESTS = 10;

/** The first requests of `file` as `label` names them, then how many more: "a, b, c and 9,990 more". */
export function listFileRequests(
  file: RequestFile,
  label: (request: FileRequest) => string = (r) => r.name ?? String(r.index),
): string {
  const shown = file.requests.slice(0, LISTED_REQUESTS).map(label).join(', ');
  const rest = file.requests.length - LISTED_REQUESTS;
  return rest > 0 ? l10n.t('{0} and {1} more', shown, formatCount(rest)) : shown;
}
