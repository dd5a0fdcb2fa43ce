// Imported first by main.ts, so that the translation bundle is in place before any module builds a string.
// The host puts its bundle and display language on the mount point (src/vscode/panel/panelHtml.ts); without it
// (the standalone test page) the panel stays English.
import { configureL10n } from '../shared/l10n';
import { isRecord } from '../shared/isRecord';

function readBundle(): void {
  const raw = document.getElementById('app')?.dataset.l10n;
  if (!raw) return;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (!isRecord(parsed)) return;
    const contents = isRecord(parsed.contents)
      ? Object.fromEntries(
          Object.entries(parsed.contents).filter((e): e is [string, string] => typeof e[1] === 'string'),
        )
      : undefined;
    configureL10n({ contents, displayLanguage: typeof parsed.language === 'string' ? parsed.language : undefined });
  } catch {
    // A page without a readable bundle shows English rather than nothing.
  }
}

readBundle();
