// What the input box of one endpoint parameter says: what the parameter selects, how to write it, and
// its default. A box with a default value quotes that one value and no other (issue #24: the end_time box
// quoted an example hour, the last hour used and the default, three different dates).
import * as l10n from '@vscode/l10n';
import type { EndpointParameter } from '../../core/mds';
import { PARAMETER_FORMATS } from '../../core/mds';

/** The prompt and placeholder of a parameter's input box. `defaultValue` is the default's value now, when it has one. */
export function parameterPrompt(
  parameter: Pick<
    EndpointParameter,
    'name' | 'description' | 'format' | 'formatDescription' | 'defaultDescription' | 'example'
  >,
  defaultValue: string | undefined,
): { prompt: string; placeHolder: string } {
  const hasDefault = !!(parameter.defaultDescription && defaultValue);
  const format = hasDefault ? PARAMETER_FORMATS[parameter.format].shape : parameter.formatDescription;
  const lines = [parameter.description, l10n.t('Format: {0}.', format)];
  if (hasDefault) lines.push(l10n.t('Default: {0} ({1}).', parameter.defaultDescription as string, defaultValue));
  return {
    prompt: `${parameter.name}: ${lines.join(' ')}`,
    placeHolder: hasDefault ? defaultValue : parameter.example,
  };
}
