import type { Credential, DecodedToken, LintFinding, SignatureCheck } from '../../core/auth';
import { decodeJwt, lintToken, verifyTokenSignature } from '../../core/auth';
import { audienceOf } from '../../core/environment';
import type { CredentialStore } from '../environments/credentialStore';
import type { EnvironmentRegistry } from '../environments/environmentRegistry';
import type { Settings } from '../platform/settings';

/** What inspecting a token reads: the stored credentials (to verify), the settings and the environments (to lint). */
export interface InspectionDeps {
  credentials: CredentialStore;
  settings: Settings;
  environments: EnvironmentRegistry;
}

/** Every audience a token may carry here: the base URLs (and configured audiences) of all environments. */
export function knownAudiences(deps: InspectionDeps): string[] {
  const audiences = new Set<string>();
  for (const env of deps.environments.all()) {
    try {
      const aud = audienceOf(env);
      for (const a of Array.isArray(aud) ? aud : [aud]) audiences.add(a);
    } catch {
      // an environment without a base URL has no audience yet
    }
  }
  return [...audiences];
}

/** Decodes, lints and (when a stored credential has the token's kid) verifies a token. */
export async function inspectToken(
  deps: InspectionDeps,
  token: string,
  signer?: Credential,
): Promise<{ decoded: DecodedToken; findings: LintFinding[]; signature?: SignatureCheck } | { reason: string }> {
  const result = decodeJwt(token);
  if (!result.ok) return { reason: result.reason };
  const kid = typeof result.token.header.kid === 'string' ? result.token.header.kid : undefined;
  let credential = signer;
  if (!credential && kid) {
    const info = (await deps.credentials.list()).find((c) => c.kid === kid);
    if (info) credential = await deps.credentials.credential(info.id).catch(() => undefined);
  }
  const findings = lintToken(result.token, {
    now: Date.now(),
    domains: deps.settings.issuerDomains,
    knownAudiences: knownAudiences(deps),
    credentialType: credential?.type,
  });
  const signature = credential ? await verifyTokenSignature(token, credential.publicKey) : undefined;
  return { decoded: result.token, findings, signature };
}
