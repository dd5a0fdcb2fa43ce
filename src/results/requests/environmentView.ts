import { curlCommand } from '../../core/http';
import type { Environment } from '../../core/environment';
import { API_LABELS } from '../../core/environment';
import type { EnvironmentView } from '../../shared/resultSummary';

/** What the panel shows of an environment. */
export function environmentView(env: Environment): EnvironmentView {
  return {
    id: env.id,
    name: env.name,
    api: env.api,
    apiLabel: API_LABELS[env.api] ?? env.api,
    stage: env.stage,
    baseUrl: env.baseUrl,
  };
}

/**
 * A ready-to-run curl command for a GET with these headers. `token` is put in as given: pass
 * `"$TOKEN"` for a preview, a fresh token for the clipboard. `Authorization` in `headers` is ignored.
 */
export function buildCurlCommand(url: string, headers: Record<string, string>, token: string): string {
  return curlCommand(url, headers, token === '$TOKEN' ? { shellVariable: 'TOKEN' } : { token });
}
