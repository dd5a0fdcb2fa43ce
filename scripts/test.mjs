#!/usr/bin/env node
// `npm test`: the static checks, then every test layer in turn. Each layer's mocha run writes its
// counts to test-results/<layer>.json; the last line sums all layers as "N passed, M failed".
// A layer that fails, or runs no test, fails the whole run.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const only = process.argv.slice(2);
const checks = [
  { name: 'typecheck', script: 'typecheck' },
  { name: 'lint', script: 'lint' },
  // l10n/bundle.l10n.json must match the sources' l10n.t strings (`npm run l10n` regenerates it).
  { name: 'l10n', script: 'l10n:check' },
  // No import cycle anywhere in src (ARCHITECTURE.md): madge over the TypeScript sources, type imports included.
  { name: 'cycles', script: 'cycles' },
];
const layers = [
  { name: 'unit', script: 'test:unit' },
  // In a real VS Code (code-server, installed into .vscode-test/ on first use: see docs/testing.md).
  { name: 'integration', script: 'test:integration' },
  { name: 'e2e', script: 'test:e2e' },
  // The same, with VS Code in the qps-ploc pseudo-locale: test/e2e/*.pseudo.test.ts (no English of ours left).
  { name: 'e2e-pseudo', script: 'test:e2e:pseudo' },
];

const resultsDir = path.resolve('test-results');
fs.mkdirSync(resultsDir, { recursive: true });
let failedChecks = 0;
let passed = 0;
let failed = 0;
const lines = [];

const run = (script, env = {}) =>
  spawnSync('npm', ['run', '--silent', script], { stdio: 'inherit', env: { ...process.env, ...env } }).status;

for (const check of checks) {
  if (only.length && !only.includes(check.name)) continue;
  const status = run(check.script);
  lines.push(`${check.name}: ${status === 0 ? 'ok' : 'FAILED'}`);
  if (status !== 0) failedChecks++;
}
for (const layer of layers) {
  if (only.length && !only.includes(layer.name)) continue;
  const file = path.join(resultsDir, `${layer.name}.json`);
  fs.rmSync(file, { force: true });
  const status = run(layer.script, { TEST_RESULT_FILE: file });
  let stats = { passes: 0, failures: 0, pending: 0 };
  if (fs.existsSync(file)) stats = JSON.parse(fs.readFileSync(file, 'utf8'));
  let note = '';
  if (!fs.existsSync(file)) note = ' (no results written: the layer did not run)';
  else if (stats.passes + stats.failures === 0) note = ' (ran no test)';
  const layerFailed = status !== 0 || note !== '';
  // A layer that died without reporting a failing test still counts as one failure.
  const layerFailures = Math.max(stats.failures, layerFailed ? 1 : 0);
  passed += stats.passes;
  failed += layerFailures;
  lines.push(`${layer.name}: ${stats.passes} passed, ${stats.failures} failed, ${stats.pending} pending, exit ${status}${note}`);
}
console.log('\n' + lines.join('\n'));
failed += failedChecks;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
