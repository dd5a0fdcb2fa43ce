import * as vscode from 'vscode';
import { decodeJwt } from '../../core/auth';
import { MobilityError } from '../../core/base';
import type { CommandDeps, CommandOutcome } from '../platform/commandDeps';
import { COMMANDS } from '../platform/commandIds';
import { registerCommand } from '../platform/registerCommand';
import { inspectToken } from './tokenInspection';
import { tokenTextFromDebugValue } from './variableValue';

/**
 * What VS Code passes from the Variables view (`debug/variables/context`: `{ sessionId, container,
 * variable }`) and the Watch view (`debug/watch/context`: `{ sessionId, variable }`), where `variable`
 * is a DAP Variable. Any debug adapter gives this shape.
 */
export interface DebugVariableArgument {
  sessionId?: string;
  container?: unknown;
  variable?: { name?: string; value?: string; evaluateName?: string };
}

/**
 * Decode JWT (debugger): decodes the value of a variable or watch expression, whichever adapter shows
 * it (quoted, escaped, shortened), and opens the decoded view. A shortened value is fetched whole by
 * evaluating its `evaluateName` in the selected stack frame.
 */
export function registerDecodeDebugVariable(deps: CommandDeps): vscode.Disposable {
  return registerCommand(
    deps,
    COMMANDS.decodeDebugVariable,
    async (arg?: DebugVariableArgument): Promise<CommandOutcome> => {
      const variable = arg?.variable;
      if (!variable || typeof variable.value !== 'string') {
        throw new MobilityError(
          'USAGE',
          vscode.l10n.t(
            'Decode JWT (debugger) works on a variable: right-click one in the Variables or Watch view while debugging.',
          ),
        );
      }
      const name = typeof variable.name === 'string' && variable.name ? variable.name : vscode.l10n.t('the value');
      let value = tokenTextFromDebugValue(variable.value);
      if (
        (value.truncated || !decodeJwt(value.text).ok) &&
        typeof variable.evaluateName === 'string' &&
        variable.evaluateName
      ) {
        const whole = await evaluateWhole(arg?.sessionId, variable.evaluateName);
        if (whole !== undefined) {
          const again = tokenTextFromDebugValue(whole);
          if (decodeJwt(again.text).ok) value = again;
        }
      }
      const inspected = await inspectToken(deps, value.text);
      if ('reason' in inspected) {
        throw new MobilityError(
          'USAGE',
          vscode.l10n.t('"{0}" does not hold a JWT: {1}', name.slice(0, 80), inspected.reason),
        );
      }
      const source = vscode.l10n.t('Debug variable {0}', name.slice(0, 80));
      deps.results.showToken({
        token: value.text,
        decoded: inspected.decoded,
        findings: inspected.findings,
        signature: inspected.signature,
        source,
      });
      return {
        ok: true,
        source,
        foundInside: value.foundInside,
        header: inspected.decoded.header,
        payload: inspected.decoded.payload,
        findings: inspected.findings.map((f) => f.id),
        signature: inspected.signature?.state ?? 'not-verified',
      };
    },
  );
}

/**
 * The whole value of an expression, from the adapter, as the text "Copy Value" would give
 * (`context: 'clipboard'`, which js-debug does not shorten), or undefined when it cannot be had.
 */
async function evaluateWhole(sessionId: string | undefined, expression: string): Promise<string | undefined> {
  const session = vscode.debug.activeDebugSession;
  if (!session || (sessionId && session.id !== sessionId)) return undefined;
  const item = vscode.debug.activeStackItem;
  const frameId = item instanceof vscode.DebugStackFrame && item.session.id === session.id ? item.frameId : undefined;
  for (const context of ['clipboard', 'repl']) {
    try {
      const body = (await session.customRequest('evaluate', { expression, frameId, context })) as
        { result?: unknown } | undefined;
      if (typeof body?.result === 'string') return body.result;
    } catch {
      // An adapter without the clipboard context refuses it; try the next.
    }
  }
  return undefined;
}
