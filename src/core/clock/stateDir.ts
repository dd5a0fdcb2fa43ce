import * as l10n from '@vscode/l10n';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { MobilityError } from '../base';

/**
 * Where every signer keeps its state (the per-key clock files among it), the same rule in the CLI, the
 * extension and every program Copy as Code writes (docs/copy-as-code.md, "One clock per key"): the first of
 * these variables that is set and not empty, which must be an absolute path.
 */
export const STATE_DIR_RULE: readonly (readonly [variable: string, under: string])[] = [
  ['MOBILITY_API_STATE_DIR', ''],
  ['XDG_STATE_HOME', 'mobility-api'],
  ['LOCALAPPDATA', 'mobility-api'],
  ['HOME', '.local/state/mobility-api'],
];

/** The state folder by {@link STATE_DIR_RULE}; a clear error, never a relative folder, when no variable gives one. */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  for (const [variable, under] of STATE_DIR_RULE) {
    const value = env[variable];
    if (!value) continue;
    if (!path.isAbsolute(value)) {
      throw new MobilityError(
        'CLOCK_STORE_FAILED',
        l10n.t(
          '{0} is "{1}", not an absolute path, so it cannot name the state folder that holds the token clock. Set it to an absolute path, or set MOBILITY_API_STATE_DIR to one.',
          variable,
          value,
        ),
      );
    }
    return under ? path.join(value, ...under.split('/')) : value;
  }
  throw new MobilityError(
    'CLOCK_STORE_FAILED',
    l10n.t(
      'No state folder for the token clock: none of MOBILITY_API_STATE_DIR, XDG_STATE_HOME, LOCALAPPDATA and HOME is set. Set MOBILITY_API_STATE_DIR to an absolute path (every process that signs with one key must use the same one).',
    ),
  );
}

/** The rule in words, for help texts. */
export function stateDirRuleText(): string {
  return STATE_DIR_RULE.map(([variable, under]) => (under ? `$${variable}/${under}` : `$${variable}`)).join(', else ');
}

/**
 * How a key id is named in the state folder: a hash, so that the files name no key ids. Entries of
 * earlier versions, which named key ids as they are, are converted when read.
 */
export function keyIdDigest(keyId: string): string {
  return `sha256:${keyIdHex(keyId)}`;
}

/** The first 32 hex digits of the SHA-256 of the key id (UTF-8): the name of its clock file and lock. */
export function keyIdHex(keyId: string): string {
  return createHash('sha256').update(keyId, 'utf8').digest('hex').slice(0, 32);
}
