// Which environment a tool call means, and whether the call may reach it: the network off unless the surface allows
// it, a production environment refused unless the user allows it (even after a confirmation's "always allow").
import * as l10n from '@vscode/l10n';
import type { Credential } from '../core/auth';
import { MobilityError } from '../core/base';
import type { AgentContext, AgentEnvironment } from './agentTool';

/** An environment is production when its stage says so (`production`, `prod`). */
export function isProduction(entry: AgentEnvironment): boolean {
  return /^prod(uction)?$/i.test(entry.environment.stage.trim());
}

/** The environment an input names by id or name; the only one when there is one and none is named. */
export async function pickEnvironment(context: AgentContext, named: unknown): Promise<AgentEnvironment> {
  const all = await context.environments();
  if (named === undefined || named === '') {
    if (all.length === 1) return all[0];
    throw new MobilityError(
      'AGENT_ENVIRONMENT_UNKNOWN',
      l10n.t(
        'Name the environment (one of: {0}); list_environments lists them.',
        all.map((e) => e.environment.id).join(', ') || l10n.t('none configured'),
      ),
    );
  }
  const text = typeof named === 'string' ? named : JSON.stringify(named);
  const found =
    all.find((e) => e.environment.id === text) ??
    all.find((e) => e.environment.name.toLowerCase() === text.toLowerCase());
  if (!found)
    throw new MobilityError(
      'AGENT_ENVIRONMENT_UNKNOWN',
      l10n.t(
        'No environment "{0}": use one of {1} (list_environments lists them).',
        text.slice(0, 80),
        all.map((e) => e.environment.id).join(', ') || l10n.t('none configured'),
      ),
    );
  return found;
}

/** Refuses a network call the user has not allowed: the network off, or a production environment. */
export function assertMayReach(context: AgentContext, entry: AgentEnvironment): void {
  if (!context.allowNetwork) {
    throw new MobilityError(
      'AGENT_NETWORK_OFF',
      l10n.t(
        'This tool sends requests, and the network tools are off: start the server with --allow-network to allow them.',
      ),
    );
  }
  if (isProduction(entry) && !context.allowProduction) {
    throw new MobilityError(
      'AGENT_PRODUCTION_REFUSED',
      l10n.t(
        '"{0}" is a production environment, which agents may not reach: allow it with --allow-production (MCP) or the setting mobilityApi.agents.allowProduction (VS Code).',
        entry.environment.name,
      ),
    );
  }
}

/** The credential bound to the environment, or a clear error naming how to bind one. */
export async function credentialOf(context: AgentContext, entry: AgentEnvironment): Promise<Credential> {
  const credential = await context.credential(entry.environment.id);
  if (!credential)
    throw new MobilityError(
      'NO_CREDENTIAL',
      l10n.t(
        'The environment "{0}" has no credential: bind one (VS Code: Set Credential…; MCP: the credential flags or MOBILITY_API_KEY_FILE).',
        entry.environment.name,
      ),
    );
  return credential;
}
