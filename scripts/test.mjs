#!/usr/bin/env node
// `npm test`: the static checks, then every test layer in turn. Each layer's mocha run writes its
// counts to test-results/<layer>.json; the last line sums all layers as "N passed, M failed".
// A layer that fails, or runs no test, fails the whole run.
import { spawn, spawnSync } from 'node:child_process';
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
  // In a real VS Code (code-server, installed on first use into the user cache, shared by every clone: see docs/testing.md).
  { name: 'integration', script: 'test:integration' },
  { name: 'e2e', script: 'test:e2e' },
  // The same, with VS Code in the qps-ploc pseudo-locale: test/e2e/*.pseudo.test.ts (no English of ours left).
  { name: 'e2e-pseudo', script: 'test:e2e:pseudo' },
];
// The whole run (no layer named) overlaps the unit and integration layers: the integration layer mostly waits (a
// token a second at second precision, a workbench loading), while the unit layer mostly computes. They share one
// build, made first, so that neither rewrites dist/ or out/ under the other. TEST_LAYERS_SEQUENTIAL=1 runs them
// one after the other, as a named layer runs.
const overlap = !only.length && process.env.TEST_LAYERS_SEQUENTIAL !== '1';

const resultsDir = path.resolve('test-results');
fs.mkdirSync(resultsDir, { recursive: true });
let failedChecks = 0;
let passed = 0;
let failed = 0;
const lines = [];
const seconds = (start) => `${Math.round((Date.now() - start) / 1000)} s`;

/** Runs an npm script, its output on ours; its status and how long it took, in whole seconds, for the closing lines. */
const run = (script, env = {}) => {
  const start = Date.now();
  const { status } = spawnSync('npm', ['run', '--silent', script], { stdio: 'inherit', env: { ...process.env, ...env } });
  return { status, took: seconds(start) };
};

/** Runs a command with its output kept apart (printed whole once it ends, so that two at once do not interleave). */
const runApart = (command, args, env = {}) => new Promise((resolve) => {
  const start = Date.now();
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  const chunks = [];
  child.stdout.on('data', (d) => chunks.push(d));
  child.stderr.on('data', (d) => chunks.push(d));
  child.on('close', (status) => resolve({ status, took: seconds(start), output: Buffer.concat(chunks).toString() }));
});

// The static checks at once (two cores: the type checker and the linter are the long ones), each printed whole.
const selectedChecks = checks.filter((check) => !only.length || only.includes(check.name));
const checkRuns = await Promise.all(selectedChecks.map((check) => runApart('npm', ['run', '--silent', check.script])));
for (const [i, check] of selectedChecks.entries()) {
  const { status, took, output } = checkRuns[i];
  process.stdout.write(output);
  lines.push(`${check.name}: ${status === 0 ? 'ok' : 'FAILED'} (${took})`);
  if (status !== 0) failedChecks++;
}

/** A layer's counts from its results file, into the closing lines and the sums. */
const record = (layer, file, { status, took }) => {
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
  lines.push(`${layer.name}: ${stats.passes} passed, ${stats.failures} failed, ${stats.pending} pending, exit ${status}, ${took}${note}`);
};
const resultFile = (layer) => {
  const file = path.join(resultsDir, `${layer.name}.json`);
  fs.rmSync(file, { force: true });
  return file;
};

let remaining = layers.filter((layer) => !only.length || only.includes(layer.name));
if (overlap) {
  const [unit, integration] = layers;
  remaining = remaining.filter((layer) => layer !== unit && layer !== integration);
  const build = run('build:tests:all');
  lines.push(`build for unit and integration: ${build.status === 0 ? 'ok' : 'FAILED'} (${build.took})`);
  if (build.status !== 0) failedChecks++;
  const built = { MOBILITY_API_TESTS_BUILT: '1' };
  const integrationFile = resultFile(integration);
  const unitFile = resultFile(unit);
  console.log('\nThe integration layer runs beside the unit layer; its output follows the unit layer\'s.\n');
  const integrationRun = runApart('npm', ['run', '--silent', integration.script], { ...built, TEST_RESULT_FILE: integrationFile });
  const unitStart = Date.now();
  const unitStatus = await new Promise((resolve) => {
    spawn('npm', ['run', '--silent', 'test:unit:built'], { stdio: 'inherit', env: { ...process.env, TEST_RESULT_FILE: unitFile } }).on('close', resolve);
  });
  const unitRun = { status: unitStatus, took: seconds(unitStart) };
  const integrationDone = await integrationRun;
  console.log(`\n---- the integration layer (run beside the unit layer) ----\n${integrationDone.output}`);
  record(unit, unitFile, unitRun);
  record(integration, integrationFile, integrationDone);
}
for (const layer of remaining) {
  const file = resultFile(layer);
  record(layer, file, run(layer.script, { TEST_RESULT_FILE: file }));
}
console.log('\n' + lines.join('\n'));
failed += failedChecks;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
