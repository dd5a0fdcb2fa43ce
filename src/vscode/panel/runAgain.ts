// What the panel's "Run again" button does for a result: its own re-send, or the listing command that made it.
import * as vscode from 'vscode';
import { COMMANDS } from '../platform/commandIds';
import type { HeldResult } from './heldResult';

/** The commands "Run again" executes, with `{ environmentId }`. */
const RUN_AGAIN_COMMANDS = { vehicles: COMMANDS.listVehicles, status: COMMANDS.vehicleStatus } as const;

/** Runs the listing command `rerun` names again on `environmentId`. */
export function rerunCommand(environmentId: string, rerun: 'vehicles' | 'status' | undefined): () => Promise<unknown> {
  return () =>
    Promise.resolve(vscode.commands.executeCommand(RUN_AGAIN_COMMANDS[rerun ?? 'vehicles'], { environmentId }));
}

/** What "Run again" does for `held`: its own re-send, else the command that listed it (List Vehicles, Vehicle Status). */
export function runAgainOf(held: HeldResult): (() => Promise<unknown>) | undefined {
  if (held.runAgain) return held.runAgain;
  const environmentId = held.environment?.id ?? held.view.summary.environmentId;
  return held.view.summary.canRunAgain && environmentId
    ? rerunCommand(environmentId, held.view.summary.rerun)
    : undefined;
}
