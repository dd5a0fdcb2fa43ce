// The MDS conformance of a result in a results panel: validated against the official schemas after the result is
// on screen (the validator takes a moment on 100,000 items, and the table should not wait for it).
import * as vscode from 'vscode';
import type { HttpExchange } from '../../core/http';
import { errorMessage } from '../../core/base';
import type { ConformanceView } from '../../shared/conformanceViews';
import type { HostMessage } from '../../shared/protocol';
import { mergeConformanceViews, resultConformanceView } from '../../results/requests/conformance';
import type { HeldResult } from './heldResult';

/** The setting that turns the panel's conformance check off. */
const VALIDATE_SETTING = 'results.validate';

function validationOn(): boolean {
  return vscode.workspace.getConfiguration('mobilityApi').get<boolean>(VALIDATE_SETTING, true) !== false;
}

/** What the check needs of its panel. */
export interface ConformancePort {
  post(message: HostMessage): void;
  isShown(held: HeldResult): boolean;
  log: vscode.LogOutputChannel;
  logTag: string;
}

/**
 * Sets the conformance state of a listing about to be shown: not MDS, off, or checking. A result shown again
 * from the history keeps the verdict it has. Returns true when a check is to follow (`checkConformance`).
 */
export function prepareConformance(held: HeldResult): boolean {
  const view = held.view;
  if (view.kind !== 'listing') return false;
  if (view.conformance && view.conformance.state !== 'checking') return false;
  view.conformance =
    held.environment?.api !== 'mds' ? { state: 'notMds' } : validationOn() ? { state: 'checking' } : { state: 'off' };
  return view.conformance.state === 'checking';
}

/** Validates `pages` (starting at page `offset`) of `held`, and posts the verdict while `held` is shown. */
export function checkConformance(held: HeldResult, pages: HttpExchange[], offset: number, port: ConformancePort): void {
  const view = held.view;
  if (view.kind !== 'listing') return;
  setImmediate(() => {
    if (!port.isShown(held)) return;
    let checked: ConformanceView;
    try {
      checked = resultConformanceView({ pages }, held.endpointId, undefined, offset);
    } catch (err) {
      port.log.warn(`${port.logTag} conformance check failed: ${errorMessage(err)}`);
      checked = { state: 'notMds' };
    }
    view.conformance = offset === 0 ? checked : mergeConformanceViews(view.conformance, checked);
    if (checked.state === 'checked')
      port.log.info(
        `${port.logTag} MDS ${checked.endpoint}: ${checked.conforms ? 'conforms' : `${checked.findingCount} findings`}`,
      );
    port.post({ type: 'conformance', resultId: view.id, conformance: view.conformance });
  });
}
