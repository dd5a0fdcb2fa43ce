// Flat, type-aware config. Import zones enforce the layer map of shared/design/architecture.md:
// each layer names the folders it must not import. The core, results, sandbox, CLI, shared
// protocol and webview bundle never import `vscode`; the webview bundle imports neither the core
// nor Node; services reach the sandbox only through its start/stop API (sandboxServer).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const VSCODE = { name: 'vscode', message: 'This layer is vscode-free (see CONTRIBUTING.md): put editor glue in src/services or the shell.' };
const SHELL = 'services|commands|tree|debug|webview|statusBar|extension';

/** `no-restricted-imports` for one layer: no vscode (unless allowed), and none of `folders` (a regex alternation of src/ folders). */
function zone(folders, message, { vscode = false, extra = [] } = {}) {
  return {
    'no-restricted-imports': ['error', {
      paths: vscode ? [] : [VSCODE],
      patterns: [
        { regex: `^(\\.\\./)+(${folders})(/|$)`, message },
        ...extra,
      ],
    }],
  };
}

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.vscode-test/**', 'test-results/**', 'media/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' }],
    },
  },
  { files: ['src/core/**'], rules: zone(`${SHELL}|results|sandbox|cli|webview-ui`, 'The core imports only Node, jose, ajv and src/shared.') },
  { files: ['src/results/**'], rules: zone(`${SHELL}|sandbox|cli|webview-ui`, 'Presentation models import only the core and src/shared.') },
  { files: ['src/sandbox/**'], rules: zone(`${SHELL}|results|cli|webview-ui`, 'The sandbox imports only the core.') },
  { files: ['src/cli/**'], rules: zone(`${SHELL}|webview-ui`, 'The CLI imports the core, results and the sandbox, never the VS Code shell.') },
  { files: ['src/shared/**'], rules: zone('core|results|sandbox|cli|webview-ui|' + SHELL, 'src/shared holds the host-webview contract and imports nothing else.') },
  {
    files: ['src/webview-ui/**'],
    rules: zone(`core|results|sandbox|cli|${SHELL}`, 'The webview bundle runs in the browser: it imports src/shared only.', {
      extra: [{ regex: '^node:|^(fs|path|os|crypto|child_process|http|https|net|util|stream|buffer|events|url)$', message: 'The webview bundle runs in the browser: no Node modules.' }],
    }),
  },
  {
    files: ['src/services/**', 'src/commands/**', 'src/tree/**', 'src/debug/**', 'src/webview/**', 'src/statusBar/**'],
    rules: zone('cli|webview-ui', 'The shell uses the core, results and services.', {
      vscode: true,
      extra: [{ regex: '^(\\.\\./)+sandbox/(?!sandboxServer$)', message: 'Reach the sandbox only through its start/stop API (src/sandbox/sandboxServer, loaded by SandboxService).' }],
    }),
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    rules: { ...tseslint.configs.disableTypeChecked.rules, '@typescript-eslint/no-require-imports': 'off', 'no-restricted-syntax': 'off' },
  },
);
