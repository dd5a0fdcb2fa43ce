import type { HttpExchange } from '../../core/http';
import type { Credential } from '../../core/auth';
import type { RefusalContext } from '../../results/tokens/refusalView';
import type { CommandDeps } from '../platform/commandDeps';

/**
 * What the panel needs to explain a 401/403 beyond the environment: the type of the credential
 * that signed, and the shared clock's mark for its key (a later token signed elsewhere breaks
 * spec 5.1 rule 6). The mark is read only when a page was refused.
 */
export async function refusalContextFor(
  deps: Pick<CommandDeps, 'clients'>,
  credential: Credential,
  pages: readonly HttpExchange[],
): Promise<Partial<RefusalContext>> {
  const context: Partial<RefusalContext> = { credentialType: credential.type };
  if (pages.some((p) => p.status === 401 || p.status === 403)) {
    context.keyMark = await deps.clients.keyMark(credential.kid).catch(() => undefined);
  }
  return context;
}
