// The one set of tools both surfaces offer (VS Code's language-model tools, `mobility-api mcp`), and the one way to
// run one: the input checked against its schema (ajv), the tool run, and every answer (an error's too) scrubbed.
import * as l10n from '@vscode/l10n';
import Ajv from 'ajv';
import type { ValidateFunction } from 'ajv';
import { errorMessage, isMobilityError, MobilityError, redactSecrets } from '../core/base';
import type { AgentContext, AgentTool, ToolCall } from './agentTool';
import { answerText } from './scrubAnswer';
import { HARVEST_TOOLS } from './tools/harvestTools';
import { LOCAL_TOOLS } from './tools/localTools';
import { NETWORK_TOOLS } from './tools/networkTools';

/** Every tool, read-only ones first. */
export const AGENT_TOOLS: readonly AgentTool[] = [...LOCAL_TOOLS, ...HARVEST_TOOLS, ...NETWORK_TOOLS];

/** What a call answers: the scrubbed JSON text, and whether it is an error. */
export interface ToolAnswer {
  text: string;
  isError: boolean;
}

let ajv: Ajv | undefined;
const validators = new Map<string, ValidateFunction>();

/** The compiled validator of a tool's input schema (compiled once). */
export function inputValidator(tool: AgentTool): ValidateFunction {
  let validate = validators.get(tool.name);
  if (!validate) {
    ajv ??= new Ajv({ allErrors: true, strict: true, useDefaults: false });
    validate = ajv.compile(tool.inputSchema);
    validators.set(tool.name, validate);
  }
  return validate;
}

export function findTool(name: string): AgentTool | undefined {
  return AGENT_TOOLS.find((t) => t.name === name);
}

/** The key ids of every credential the surface holds, to hide wherever one stands in an answer. */
async function kidsOf(context: AgentContext): Promise<string[]> {
  const kids: string[] = [];
  for (const entry of await context.environments().catch(() => [])) {
    const credential = await context.credential(entry.environment.id).catch(() => undefined);
    if (credential) kids.push(credential.kid);
  }
  return kids;
}

/**
 * Runs tool `name` with `input`: the input checked (a clear error naming the field), the network and production
 * rules kept by the tool, the answer scrubbed. Never throws: a failure is an answer with `isError`.
 */
export async function runAgentTool(
  name: string,
  input: unknown,
  context: AgentContext,
  call: ToolCall = {},
): Promise<ToolAnswer> {
  const kids = await kidsOf(context);
  const scrub = (value: unknown) => answerText(value, { kids, preciseLocations: context.preciseLocations });
  try {
    const tool = findTool(name);
    if (!tool)
      throw new MobilityError(
        'AGENT_TOOL_UNKNOWN',
        l10n.t('No tool "{0}": the tools are {1}.', name.slice(0, 100), AGENT_TOOLS.map((t) => t.name).join(', ')),
      );
    if (tool.network && !context.allowNetwork) {
      throw new MobilityError(
        'AGENT_NETWORK_OFF',
        l10n.t(
          '{0} sends requests, and the network tools are off: start the server with --allow-network to allow them.',
          tool.name,
        ),
      );
    }
    const given = input ?? {};
    const validate = inputValidator(tool);
    if (!validate(given)) {
      const problems = (validate.errors ?? []).map((e) =>
        `${e.instancePath || '(input)'} ${e.message ?? ''}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`.trim(),
      );
      throw new MobilityError(
        'AGENT_INPUT_INVALID',
        l10n.t('The input of {0} does not fit its schema: {1}.', tool.name, problems.join('; ')),
      );
    }
    const value = await tool.run(given as Record<string, unknown>, context, call);
    return { text: scrub(value), isError: false };
  } catch (err) {
    const code = isMobilityError(err) ? err.code : 'UNEXPECTED';
    const message = isMobilityError(err)
      ? err.message
      : l10n.t('unexpected failure: {0}', redactSecrets(errorMessage(err)));
    return { text: scrub({ error: { code, message } }), isError: true };
  }
}
