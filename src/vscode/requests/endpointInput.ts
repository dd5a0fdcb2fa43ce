import * as vscode from 'vscode';
import type { Environment } from '../../core/environment';
import { isMobilityError } from '../../core/base';
import type { CatalogueEndpoint, EndpointParameter } from '../../core/mds';
import { checkEndpointValues, checkParameterValue, endpointDefaults } from '../../core/mds';
import { parameterPrompt } from '../../results/requests/parameterPrompt';
import { Cancelled } from '../platform/registerCommand';

/** The workspace-state key of the values last used per environment and endpoint (parameter values only, never secrets). */
const LAST_VALUES_KEY = 'mobilityApi.endpointValues';

type RememberedValues = Record<string, Record<string, string>>;

const keyOf = (environmentId: string, endpointId: string) => `${environmentId} ${endpointId}`;

/** The values last sent to `endpoint` of `environment`, when there are any. */
export function lastEndpointValues(
  state: vscode.Memento,
  environmentId: string,
  endpointId: string,
): Record<string, string> | undefined {
  return state.get<RememberedValues>(LAST_VALUES_KEY, {})[keyOf(environmentId, endpointId)];
}

/** Remembers the values just sent, so that the next ask offers them. */
export async function rememberEndpointValues(
  state: vscode.Memento,
  environmentId: string,
  endpointId: string,
  values: Record<string, string>,
): Promise<void> {
  const all = { ...state.get<RememberedValues>(LAST_VALUES_KEY, {}) };
  all[keyOf(environmentId, endpointId)] = { ...values };
  await state.update(LAST_VALUES_KEY, all);
}

/**
 * The value first offered for a parameter. An hour parameter offers the last complete UTC hour (the
 * hour a user almost always wants; an hour remembered from yesterday rarely is); other parameters
 * offer the value last used, else their default.
 */
export function offeredValue(
  parameter: EndpointParameter,
  remembered: Record<string, string> | undefined,
  nowMs: number,
): string {
  const fallback = parameter.defaultValue?.(nowMs) ?? '';
  if (parameter.format === 'utc_hour') return fallback;
  return remembered?.[parameter.name] ?? fallback;
}

/**
 * Asks for every parameter of `endpoint`, one validated input box each: the prompt shows what the
 * parameter selects and the format expected; a value not in its format is refused as it is typed.
 * The combination is checked at the end (e.g. the two weeks of `/events/recent`) and asked again
 * while it does not hold. Throws `Cancelled` when the user closes a box.
 */
export async function askEndpointValues(
  state: vscode.Memento,
  environment: Environment,
  endpoint: CatalogueEndpoint,
  nowMs = Date.now(),
): Promise<Record<string, string>> {
  const remembered = lastEndpointValues(state, environment.id, endpoint.id);
  const values: Record<string, string> = {};
  const defaults = endpointDefaults(endpoint, nowMs);
  let problem: string | undefined;
  for (;;) {
    for (const [index, parameter] of endpoint.parameters.entries()) {
      const offered = values[parameter.name] ?? offeredValue(parameter, remembered, nowMs);
      const { prompt, placeHolder } = parameterPrompt(parameter, defaults[parameter.name]);
      const answer = await vscode.window.showInputBox({
        title: `${endpoint.title} · ${environment.name}${endpoint.parameters.length > 1 ? ` (${index + 1}/${endpoint.parameters.length})` : ''}`,
        prompt,
        placeHolder,
        value: offered,
        ignoreFocusOut: true,
        validateInput: (text) => validateParameter(parameter, text, index === 0 ? problem : undefined),
      });
      if (answer === undefined) throw new Cancelled();
      values[parameter.name] = answer.trim();
    }
    try {
      return checkEndpointValues(endpoint, values, { nowMs }).values;
    } catch (err) {
      if (!isMobilityError(err)) throw err;
      // Asked again with the reason shown under the first box until the combination holds.
      problem = err.message;
    }
  }
}

/** What the input box shows under a value: the problem with it, or nothing (an empty value takes the default when there is one). */
function validateParameter(
  parameter: EndpointParameter,
  text: string,
  earlierProblem: string | undefined,
): vscode.InputBoxValidationMessage | string | undefined {
  if (text.trim() === '') {
    return parameter.defaultValue || !parameter.required
      ? undefined
      : vscode.l10n.t('{0} is required: {1}', parameter.name, parameter.formatDescription);
  }
  const checked = checkParameterValue(parameter.name, parameter.format, text);
  if (!checked.ok) return checked.problem;
  return earlierProblem ? { message: earlierProblem, severity: vscode.InputBoxValidationSeverity.Warning } : undefined;
}

/** "2025-11-05T13": what the values say, for a result's title. */
export function describeValues(endpoint: CatalogueEndpoint, values: Record<string, string>): string {
  return endpoint.parameters
    .map((p) => values[p.name])
    .filter((v): v is string => !!v)
    .join(' · ');
}
