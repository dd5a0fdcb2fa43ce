// The extension host's side of localisation: configures this bundle's @vscode/l10n (src/shared/l10n.ts) from
// the bundle VS Code loaded for the extension (l10n/bundle.l10n.<language>.json), and gives the webview the
// same strings, since a webview cannot read them itself.
import * as vscode from 'vscode';
import type { L10nContents } from '../../shared/l10n';
import { configureL10n } from '../../shared/l10n';

/** What the webview needs to translate itself: the host's bundle (undefined in English) and the display language. */
export interface WebviewL10n {
  contents?: L10nContents;
  language: string;
}

/** The strings and language of this window, as VS Code resolved them for the extension. */
export function hostL10n(): WebviewL10n {
  return { contents: vscode.l10n.bundle, language: vscode.env.language };
}

/** Configures the calling bundle's copy of @vscode/l10n (each esbuild bundle has its own; call once per bundle). */
export function configureHostL10n(): void {
  const { contents, language } = hostL10n();
  configureL10n({ contents, displayLanguage: language });
}
