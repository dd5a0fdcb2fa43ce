// Flat, type-aware config. Import zones enforce the layer map of shared/design/architecture.md:
// each layer names the folders it must not import. The core, results, sandbox, CLI, shared
// protocol and webview bundle never import `vscode`; the webview bundle imports neither the core
// nor Node; the VS Code glue reaches the sandbox only through its start/stop API (sandboxServer).
// Inside src/core each domain folder is entered only through its index.ts, and imports only the domains
// CORE_DOMAINS allows it (ARCHITECTURE.md has the picture); outside src/core nobody reaches past an index.ts.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const VSCODE = {
  name: 'vscode',
  message: 'This layer is vscode-free (see CONTRIBUTING.md): put editor glue in src/vscode/<feature>.',
};
const SHELL = 'vscode|extension|main';

/**
 * The core's domains and the domains each may import (through their index.ts). `auth` and `clock` know no transport;
 * `mds` describes requests but never sends them; a protocol is a domain beside `http`.
 */
const CORE_DOMAINS = {
  base: [],
  environment: ['base'],
  clock: ['base'],
  auth: ['base', 'environment', 'clock'],
  mds: ['base', 'environment'],
  conformance: ['base', 'mds'],
  http: ['base', 'environment', 'clock', 'auth', 'mds'],
  grpc: ['base', 'environment', 'clock', 'auth', 'mds'],
  codegen: ['base', 'environment', 'auth', 'mds'],
  harvest: ['base', 'environment', 'clock', 'auth', 'mds', 'http', 'conformance'],
  geography: ['base', 'environment', 'auth', 'conformance', 'http'],
  analysis: ['base', 'mds', 'conformance', 'harvest', 'geography'],
  contract: ['base', 'environment', 'auth', 'mds', 'conformance', 'http'],
  metrics: ['base', 'analysis'],
};
const PAST_A_DOOR = {
  regex: '^(\\.\\./)+core/[^/]+/',
  message: 'Import a core domain through its index.ts (../core/<domain>), not its files.',
};

/**
 * The import patterns a file of core domain `domain` must not use, besides the layer rules: `up` is the way from the
 * file's folder to src/core (`../` in the domain's folder, `../../` in a subfolder of it, whose `../x/` is its own
 * domain's).
 */
function domainPatterns(domain, up) {
  const others = Object.keys(CORE_DOMAINS).filter((d) => d !== domain);
  const forbidden = others.filter((d) => !CORE_DOMAINS[domain].includes(d));
  return [
    {
      regex: `^${up}[^./][^/]*/`,
      message: 'Import another core domain through its index.ts (../<domain>), not its files.',
    },
    ...(forbidden.length
      ? [
          {
            regex: `^${up}(${forbidden.join('|')})$`,
            message: `The ${domain} domain may import only ${CORE_DOMAINS[domain].join(', ') || 'src/shared'} (see ARCHITECTURE.md).`,
          },
        ]
      : []),
  ];
}

/** `no-restricted-imports` for one layer: no vscode (unless allowed), and none of `folders` (a regex alternation of src/ folders). */
function zone(folders, message, { vscode = false, extra = [], depth = 1 } = {}) {
  return {
    'no-restricted-imports': [
      'error',
      {
        paths: vscode ? [] : [VSCODE],
        patterns: [{ regex: `^(\\.\\./){${depth},}(${folders})(/|$)`, message }, ...extra],
      },
    ],
  };
}

const NAMED_EXPORTS = { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' };

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.vscode-test/**', 'test-results/**', 'media/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      // One TypeScript program for every file: test/tsconfig.json holds src (the webview's too), test and bench. With
      // the project service each tsconfig made a program of its own, and src was type-checked twice (lint: 148 s of
      // processor time against 116). Which library each layer may use is typecheck's job (its three projects).
      parserOptions: { project: ['./test/tsconfig.json'], tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', NAMED_EXPORTS],
    },
  },
  {
    // A quick pick or input box that closes on focus loss vanishes under the user when a webview that loads, or a
    // webview that had focus before the palette, takes the focus back a moment after it opens (microsoft/vscode#93950).
    files: ['src/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        // This block's rule replaces the one above for src/**, so it names that selector again.
        NAMED_EXPORTS,
        {
          selector:
            'CallExpression[callee.property.name=/^(showQuickPick|showInputBox)$/]:not(:has(Property[key.name="ignoreFocusOut"]))',
          message:
            'Pass ignoreFocusOut: true: a webview taking the focus back would close this question under the user.',
        },
      ],
    },
  },
  {
    files: ['src/core/**'],
    rules: zone(
      `${SHELL}|results|sandbox|cli|webview-ui|agent`,
      'The core imports only Node, jose, ajv, gRPC and src/shared.',
    ),
  },
  ...Object.keys(CORE_DOMAINS).flatMap((domain) =>
    [
      { files: [`src/core/${domain}/*`], up: '\\.\\./' },
      { files: [`src/core/${domain}/*/**`], up: '\\.\\./\\.\\./' },
    ].map(({ files, up }) => ({
      files,
      // Two levels up at least: from a domain's folder, `../analysis` is the core's analysis domain, not the shell's src/analysis.
      rules: zone(
        `${SHELL}|results|sandbox|cli|webview-ui|agent`,
        'The core imports only Node, jose, ajv, gRPC and src/shared.',
        { extra: domainPatterns(domain, up), depth: 2 },
      ),
    })),
  ),
  {
    files: ['src/results/**'],
    rules: zone(`${SHELL}|sandbox|cli|webview-ui|agent`, 'Presentation models import only the core and src/shared.', {
      extra: [PAST_A_DOOR],
    }),
  },
  {
    files: ['src/sandbox/**'],
    rules: zone(`${SHELL}|results|cli|webview-ui`, 'The sandbox imports only the core.', { extra: [PAST_A_DOOR] }),
  },
  {
    files: ['src/cli/**'],
    rules: zone(`${SHELL}|webview-ui`, 'The CLI imports the core, results and the sandbox, never the VS Code shell.', {
      extra: [PAST_A_DOOR],
    }),
  },
  {
    files: ['src/agent/**'],
    rules: zone(
      `${SHELL}|sandbox|cli|webview-ui`,
      'The agent tools import only the core, results and src/shared: both surfaces (VS Code, the MCP server) use them.',
      { extra: [PAST_A_DOOR] },
    ),
  },
  {
    files: ['src/shared/**'],
    rules: zone(
      'core|results|sandbox|cli|webview-ui|' + SHELL,
      'src/shared holds the host-webview contract and imports nothing else.',
    ),
  },
  {
    files: ['src/webview-ui/**'],
    rules: zone(
      `core|results|sandbox|cli|${SHELL}`,
      'The webview bundle runs in the browser: it imports src/shared only.',
      {
        extra: [
          {
            regex: '^node:|^(fs|path|os|crypto|child_process|http|https|net|util|stream|buffer|events|url)$',
            message: 'The webview bundle runs in the browser: no Node modules.',
          },
        ],
      },
    ),
  },
  {
    files: ['src/vscode/**', 'src/main.ts', 'src/extension.ts'],
    rules: zone('cli|webview-ui', 'The shell uses the core, results and services.', {
      vscode: true,
      extra: [
        PAST_A_DOOR,
        {
          regex: '^(\\.\\./){2,}sandbox/(?!sandboxServer$)',
          message:
            'Reach the sandbox only through its start/stop API (src/sandbox/sandboxServer, loaded by SandboxService).',
        },
      ],
    }),
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    rules: {
      ...tseslint.configs.disableTypeChecked.rules,
      '@typescript-eslint/no-require-imports': 'off',
      'no-restricted-syntax': 'off',
    },
  },
);
