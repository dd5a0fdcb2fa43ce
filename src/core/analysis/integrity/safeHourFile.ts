/** A harvest manifest's `file` entry, refused when it would leave the folder of the manifest. */
import fs from 'node:fs';
import path from 'node:path';
import * as l10n from '@vscode/l10n';
import { MobilityError } from '../../base';

/**
 * The absolute path of a manifest's `file` entry, refused when it would leave `dir` (the folder holding the manifest):
 * an absolute path, a `..` segment, or a link whose target lies outside.
 */
export function safeHourFile(dir: string, file: string, manifestPath: string): string {
  const segments = file.split(/[\\/]/);
  const refuse = (why: string) =>
    new MobilityError(
      'ANALYSIS_DATA_INVALID',
      l10n.t(
        '{0} names the hour file "{1}", which {2}. A harvest manifest names files inside its own folder only; harvest again into a new folder, or correct that entry.',
        manifestPath,
        file,
        why,
      ),
    );
  if (path.isAbsolute(file) || /^[a-zA-Z]:/.test(file) || file.startsWith('\\'))
    throw refuse(l10n.t('is an absolute path'));
  if (segments.includes('..')) throw refuse(l10n.t('leaves the folder (..)'));
  const full = path.join(dir, ...segments);
  let real: string;
  try {
    real = fs.realpathSync(full);
  } catch {
    return full; // Missing: said by the caller.
  }
  const root = fs.realpathSync(dir);
  if (real !== root && !real.startsWith(root + path.sep))
    throw refuse(l10n.t('is a link to {0}, outside the harvest folder', real));
  return full;
}
