// One name per environment, the same in the Environments tree, the status bar, the pickers, the panel and
// the docs (issue #24: the tree showed "MDS staging" for the provider's staging and for the sandbox's,
// which the status bar and the demo README called "Sandbox · MDS staging"). The provider's environments
// are "MDS staging", "MDS production" and "MaaS staging"; the local sandbox's are the same with
// "Sandbox · " before them. Pure, so that the names are unit-tested.
import * as l10n from '@vscode/l10n';

/** The environments of the spec (and of the sandbox), by id. */
export type SpecEnvironmentId = 'mds-staging' | 'mds-production' | 'maas-staging';

// The API's name and the stage are names, not words to translate.
const SPEC_NAMES: Record<SpecEnvironmentId, string> = {
  'mds-staging': 'MDS staging',
  'mds-production': 'MDS production',
  'maas-staging': 'MaaS staging',
};

/** "MDS staging": the provider's environment `id`, as every view names it. */
export function specEnvironmentName(id: SpecEnvironmentId): string {
  return SPEC_NAMES[id];
}

/** "Sandbox · MDS staging": the local sandbox's environment `id`, as every view names it. */
export function sandboxEnvironmentName(id: SpecEnvironmentId): string {
  return l10n.t('Sandbox · {0}', SPEC_NAMES[id]);
}

/** Every name of a spec or sandbox environment. */
export function allEnvironmentNames(): string[] {
  const ids = Object.keys(SPEC_NAMES) as SpecEnvironmentId[];
  return [...ids.map(specEnvironmentName), ...ids.map(sandboxEnvironmentName)];
}
