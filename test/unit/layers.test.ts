import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The layer map is enforced by lint, not by goodwill: for each layer, a probe file that imports
 * what the layer must not import is linted with the project's own config, and each import must be
 * reported; what a probe's `allowed` imports (written after them) must not be. The probes live in the layers' folders
 * only while this test runs.
 */
const PROBES: { file: string; imports: string[]; allowed?: string[] }[] = [
  {
    file: 'src/core/zzLayerProbe.ts',
    imports: [
      "'vscode'",
      "'../vscode/platform/settings'",
      "'../sandbox/sandboxServer'",
      "'../results/format'",
      "'../vscode/platform/commandIds'",
    ],
  },
  // The core's domains: each imports only the domains it is allowed, and only through their index.ts.
  {
    file: 'src/core/auth/zzLayerProbe.ts',
    imports: [
      "'vscode'",
      "'../../vscode/platform/settings'",
      "'../http'",
      "'../grpc'",
      "'../mds'",
      "'../harvest'",
      "'../clock/issueClock'",
    ],
  },
  { file: 'src/core/clock/zzLayerProbe.ts', imports: ["'../auth'", "'../http'", "'../environment'"] },
  { file: 'src/core/mds/zzLayerProbe.ts', imports: ["'../http'", "'../grpc'", "'../conformance'", "'../base/errors'"] },
  { file: 'src/core/http/zzLayerProbe.ts', imports: ["'../harvest'", "'../grpc'", "'../../results/format'"] },
  // metrics may import the core's analysis domain (`../analysis`), never the glue (`../../vscode/…`).
  {
    file: 'src/core/metrics/zzLayerProbe.ts',
    imports: ["'../../vscode/analysis/analysisClient'", "'../http'", "'../analysis/metrics'"],
  },
  {
    file: 'src/results/zzLayerProbe.ts',
    imports: ["'vscode'", "'../vscode/platform/settings'", "'../sandbox/sandboxServer'", "'../core/auth/credential'"],
  },
  {
    file: 'src/sandbox/zzLayerProbe.ts',
    imports: ["'vscode'", "'../vscode/platform/settings'", "'../results/format'"],
  },
  { file: 'src/cli/zzLayerProbe.ts', imports: ["'vscode'", "'../vscode/platform/settings'"] },
  {
    file: 'src/webview-ui/zzLayerProbe.ts',
    imports: ["'vscode'", "'../core/errors'", "'node:fs'", "'path'", "'../results/format'"],
  },
  {
    file: 'src/vscode/platform/zzLayerProbe.ts',
    imports: ["'../../sandbox/world/syntheticFleet'", "'../../cli/main'", "'../../core/clock/fileClockStore'"],
  },
  { file: 'src/cli/zzLayerProbe2.ts', imports: ["'../core/http/apiClient'"] },
  // The agent tools serve VS Code and the MCP server alike: no vscode, no shell, no CLI, no sandbox; the core by its doors.
  {
    file: 'src/agent/zzLayerProbe.ts',
    imports: [
      "'vscode'",
      "'../vscode/platform/settings'",
      "'../cli/main'",
      "'../sandbox/sandboxServer'",
      "'../core/auth/credential'",
    ],
  },
  { file: 'src/results/zzLayerProbe2.ts', imports: ["'../agent/agentTools'"] },
  // In a subfolder of a domain, `../x` is the domain's own and `../../x` another domain: the same rules, one level up.
  {
    file: 'src/core/analysis/rules/zzLayerProbe.ts',
    imports: [
      "'../../http'",
      "'../../mds/mdsEndpoints'",
      "'../../../vscode/platform/settings'",
      "'../../../results/format'",
    ],
    allowed: ["'../integrity/intake'", "'../checkRules'", "'../../mds'"],
  },
];

/** A probe that asks the user without ignoreFocusOut (and with it), in the shell. */
const FOCUS_PROBE = 'src/vscode/requests/zzFocusProbe.ts';

/** ESLint's JSON report of `files`, linted with the project's own config. */
function lintJson(
  files: string[],
): Promise<{ filePath: string; messages: { ruleId: string | null; line: number; message: string }[] }[]> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.resolve('node_modules/eslint/bin/eslint.js'), '--format', 'json', ...files],
      { maxBuffer: 16 * 1024 * 1024 },
      (_err, stdout) => resolve(JSON.parse(stdout) as never),
    );
  });
}

/** The shell probe's text: asks the user without ignoreFocusOut (line 3) and with it (line 4). */
const FOCUS_PROBE_TEXT = [
  "import * as vscode from 'vscode';",
  'export async function asks(): Promise<unknown[]> {',
  "  return [await vscode.window.showQuickPick(['a'], { placeHolder: 'Which?' }), await vscode.window.showInputBox({ prompt: 'What?' }),",
  "    await vscode.window.showQuickPick(['a'], { placeHolder: 'Which?', ignoreFocusOut: true }), await vscode.window.showInputBox({ prompt: 'What?', ignoreFocusOut: true })];",
  '}',
  '',
].join('\n');

describe('layers: lint enforces who may import whom', function () {
  this.timeout(180_000);
  type Report = Awaited<ReturnType<typeof lintJson>>;
  /** One ESLint run over every probe (each run builds the project's type information: about half a minute on two cores). */
  let linted: Promise<Report> | undefined;
  const report = (): Promise<Report> => {
    linted ??= (() => {
      for (const p of PROBES)
        fs.writeFileSync(
          p.file,
          [...p.imports, ...(p.allowed ?? [])].map((m, i) => `export * as probe${i} from ${m};`).join('\n') + '\n',
        );
      fs.writeFileSync(FOCUS_PROBE, FOCUS_PROBE_TEXT);
      return lintJson([...PROBES.map((p) => p.file), FOCUS_PROBE]);
    })();
    return linted;
  };

  after(() => {
    for (const file of [...PROBES.map((p) => p.file), FOCUS_PROBE]) fs.rmSync(file, { force: true });
  });

  it('reports every forbidden import of every layer, and nothing else', async () => {
    const results = await report();
    for (const p of PROBES) {
      const result = results.find((r) => r.filePath === path.resolve(p.file));
      assert.ok(result, `${p.file} was linted`);
      const restricted = result.messages
        .filter((m) => m.ruleId === 'no-restricted-imports')
        .map((m) => m.line)
        .sort((a, b) => a - b);
      assert.deepEqual(
        restricted,
        p.imports.map((_, i) => i + 1),
        `${p.file}: ${JSON.stringify(result.messages)}`,
      );
    }
  });

  it('reports a quick pick or input box that would close when a webview takes the focus back (no ignoreFocusOut)', async () => {
    const result = (await report()).find((r) => r.filePath === path.resolve(FOCUS_PROBE));
    assert.ok(result, `${FOCUS_PROBE} was linted`);
    const reported = result.messages.filter((m) => m.ruleId === 'no-restricted-syntax');
    // Line 3 asks twice without it; line 4 asks twice with it.
    assert.deepEqual(
      reported.map((m) => m.line),
      [3, 3],
      JSON.stringify(result.messages),
    );
    assert.match(reported[0].message, /ignoreFocusOut: true/);
  });
});
