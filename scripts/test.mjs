#!/usr/bin/env node
// `npm test`: the static checks, then every test layer in turn. Each layer's mocha run writes its
// counts to test-results/<layer>.json; the last line sums all layers as "N passed, M failed".
// A layer that fails, or runs no test, fails the whole run.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const only = process.argv.slice(2);
const checks = [
  // The extension host's and the webview's projects (their own libraries: no DOM, no Node types); test/tsconfig.json,
  // which holds src, test and bench, is type-checked by the linter, on the program its type-aware rules use.
  { name: 'typecheck', script: 'typecheck:layers' },
  { name: 'lint', script: 'lint' },
  // l10n/bundle.l10n.json must match the sources' l10n.t strings (`npm run l10n` regenerates it).
  { name: 'l10n', script: 'l10n:check' },
  // No import cycle anywhere in src (ARCHITECTURE.md): madge over the TypeScript sources, type imports included.
  { name: 'cycles', script: 'cycles' },
  // Formatted by Prettier (.prettierrc.json; `npm run format` fixes it).
  { name: 'format', script: 'format:check' },
];
const layers = [
  { name: 'unit', script: 'test:unit' },
  // In a real VS Code (code-server, installed on first use into the user cache, shared by every clone: see docs/testing.md).
  { name: 'integration', script: 'test:integration' },
  { name: 'e2e', script: 'test:e2e' },
  // The same, with VS Code in the qps-ploc pseudo-locale: test/e2e/*.pseudo.test.ts (no English of ours left).
  { name: 'e2e-pseudo', script: 'test:e2e:pseudo' },
];
// The e2e files of the third lane (E2E_FILES), on a code-server of their own from the start, then e2e-pseudo; the
// workbench lane runs the integration layer, then every other e2e file (E2E_SKIP_FILES: a new file goes there). The
// e2e layer alone mostly waits (417 s of CPU in 1573 s), but in a full run the workbench lanes' Chromiums and
// code-servers take about 60% of the processor time, and the run is bound by processor time (docs/testing.md).
// Chosen from the per-file times each layer prints (test-results/<layer>.json) so that both lanes end about together;
// the figures are in docs/testing.md.
const E2E_THIRD_LANE = ['fetchHours', 'sharedClock', 'firstMinutes', 'resultsHistory', 'shell', 'explore', 'canary'];
// The unit files of a fourth lane, a mocha run of their own beside the rest of the unit layer: the programs of Copy as
// Code built and run in five languages and the packed CLI, which mostly wait on compilers and child processes (about
// 600 s of the layer's 1,200 in the rehearsal of 2026-11-28), and five computing files (analysis, fuzz, bundles,
// dataQualityDoc, geographyReports: 320 s) so that both unit lanes end about together (docs/testing.md; on
// 2026-11-29 the unit lane took 1,284 s against unit-2's 1,095; in the rehearsal of 2026-11-29 evening, with code-server
// installed before the lanes, 1,463 s against 1,350 and the workbench lanes 1,435 and 1,203: cli, 65 s, moved too).
// Their counts go to test-results/unit-2.json.
const UNIT_SECOND_LANE = [
  'codegenRunTsJava',
  'codegenRun',
  'codegenClock',
  'codegenGrpcRun',
  'cliPackage',
  'analysis',
  'fuzz',
  'bundles',
  'dataQualityDoc',
  'geographyReports',
  'cli',
].map((name) => `out/test/unit/${name}.test.js`);
// The whole run (no layer named) builds every layer once after the checks (so that no layer rewrites dist/ or out/
// under another), then runs three lanes: the unit layer, which mostly computes; the integration layer then the e2e
// layer; the e2e files above then e2e-pseudo. The workbench layers mostly wait (a token a second at second precision,
// a workbench loading, a browser painting). TEST_LAYERS_SEQUENTIAL=1 runs every layer one after the other, as a named
// layer runs.
const overlap = !only.length && process.env.TEST_LAYERS_SEQUENTIAL !== '1';

const resultsDir = path.resolve('test-results');
fs.mkdirSync(resultsDir, { recursive: true });
let failedChecks = 0;
let passed = 0;
let failed = 0;
const lines = [];
const seconds = (start) => `${Math.round((Date.now() - start) / 1000)} s`;
/** The machine's processor time so far in clock ticks, busy and all (/proc/stat); undefined where there is none. */
const machineTicks = () => {
  try {
    const ticks = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return { idle: ticks[3] + ticks[4], total: ticks.reduce((a, b) => a + b, 0) };
  } catch {
    return undefined;
  }
};
/** How busy every processor of the machine was since `start` (machineTicks), for the closing lines: the lanes are
 * worth spreading over more lanes only while this stays under 100%. */
const busySince = (start) => {
  const end = machineTicks();
  if (!start || !end || end.total === start.total) return 'unknown';
  const busy = 1 - (end.idle - start.idle) / (end.total - start.total);
  return `${Math.round(busy * 100)}% busy, ${Math.round((end.total - end.idle - (start.total - start.idle)) / 100)} processor-seconds`;
};

/** Runs an npm script, its output on ours; its status and how long it took, in whole seconds, for the closing lines. */
const run = (script, env = {}) => {
  const start = Date.now();
  const { status } = spawnSync('npm', ['run', '--silent', script], {
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  return { status, took: seconds(start) };
};

/** Runs a command, its output kept apart (printed whole once it ends, so that two at once do not interleave) or, with
 * `inherit`, on ours. */
const runApart = (command, args, env = {}, { inherit = false } = {}) =>
  new Promise((resolve) => {
    const start = Date.now();
    const child = spawn(command, args, {
      stdio: inherit ? 'inherit' : ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    const chunks = [];
    child.stdout?.on('data', (d) => chunks.push(d));
    child.stderr?.on('data', (d) => chunks.push(d));
    child.on('close', (status) => resolve({ status, took: seconds(start), output: Buffer.concat(chunks).toString() }));
  });

// The static checks at once (two cores: the type checker and the linter are the long ones), each printed whole as it
// ends, so that the first minutes are not silent: a line says what runs, and each check's own line when it ends.
const selectedChecks = checks.filter((check) => !only.length || only.includes(check.name));
const checksStart = machineTicks();
if (selectedChecks.length) {
  console.log(
    `npm test: the static checks at once (${selectedChecks.map((c) => c.name).join(', ')}), about 1-2 minutes on two cores; each check's output is printed when it ends.`,
  );
}
// The whole run starts building as soon as one check is left (the linter, alone on one core for its last minute),
// and the lanes once the build is done, while that check may still run: its result counts all the same.
let checksLeft = selectedChecks.length;
let lastCheck = () => {};
const oneCheckLeft = new Promise((resolve) => (lastCheck = resolve));
if (checksLeft <= 1) lastCheck();
/** The checks' closing lines (first of all), written once every check has ended. */
const checkLines = [];
const checksRecorded = Promise.all(
  selectedChecks.map(async (check) => {
    const done = await runApart('npm', ['run', '--silent', check.script]);
    process.stdout.write(done.output);
    console.log(`${check.name}: ${done.status === 0 ? 'ok' : 'FAILED'} (${done.took})`);
    if (--checksLeft <= 1) lastCheck();
    return done;
  }),
).then((runs) => {
  for (const [i, check] of selectedChecks.entries()) {
    const { status, took } = runs[i];
    checkLines.push(`${check.name}: ${status === 0 ? 'ok' : 'FAILED'} (${took})`);
    if (status !== 0) failedChecks++;
  }
  if (selectedChecks.length > 1) checkLines.push(`the machine during the static checks: ${busySince(checksStart)}`);
});
if (!overlap) await checksRecorded;

/** A layer's counts from its results file, into the closing lines and the sums. */
const record = (layer, file, { status, took }) => {
  let stats = { passes: 0, failures: 0, pending: 0 };
  if (fs.existsSync(file)) stats = JSON.parse(fs.readFileSync(file, 'utf8'));
  let note = '';
  if (!fs.existsSync(file)) note = ' (no results written: the layer did not run)';
  else if (stats.passes + stats.failures === 0) note = ' (ran no test)';
  const layerFailed = status !== 0 || note !== '';
  // The processor seconds of its mocha process and the children it waited for (the reporter's per-file figures).
  const cpuSeconds = Object.values(stats.cpuSeconds ?? {});
  const cpu = cpuSeconds.length
    ? ` (${Math.round(cpuSeconds.reduce((a, b) => a + b, 0))} s of processor time in its test process and the children it waited for)`
    : '';
  // A layer that died without reporting a failing test still counts as one failure.
  const layerFailures = Math.max(stats.failures, layerFailed ? 1 : 0);
  passed += stats.passes;
  failed += layerFailures;
  lines.push(
    `${layer.name}: ${stats.passes} passed, ${stats.failures} failed, ${stats.pending} pending, exit ${status}, ${took}${cpu}${note}`,
  );
};
const resultFile = (layer) => {
  const file = path.join(resultsDir, `${layer.name}.json`);
  fs.rmSync(file, { force: true });
  return file;
};

let remaining = layers.filter((layer) => !only.length || only.includes(layer.name));
if (overlap) {
  const [unit, integration, e2e, pseudo] = layers;
  // Two e2e runs of the same script on two code-servers, results in test-results/e2e.json and e2e-2.json.
  const e2eThird = { name: 'e2e-2', script: e2e.script };
  remaining = [];
  // Not beside every check (on two cores a build beside them all made the checks 80 s longer than it took), but
  // beside the last one, which leaves a core idle.
  await oneCheckLeft;
  console.log('npm test: building every layer once (npm run build:tests:all, about 30-60 s)...');
  const build = await runApart('npm', ['run', '--silent', 'build:tests:all'], {}, { inherit: true });
  lines.push(`build for every layer: ${build.status === 0 ? 'ok' : 'FAILED'} (${build.took})`);
  if (build.status !== 0) failedChecks++;
  const built = { MOBILITY_API_TESTS_BUILT: '1' };
  const files = new Map([...layers, e2eThird].map((layer) => [layer, resultFile(layer)]));
  /** A workbench layer with its output kept apart, printed whole when it ends. */
  const apart = async (layer, env = {}) => {
    console.log(`npm test: the ${layer.name} layer starts; its output is printed when it ends.`);
    const done = await runApart('npm', ['run', '--silent', layer.script], {
      ...built,
      ...env,
      TEST_RESULT_FILE: files.get(layer),
    });
    console.log(
      `\n---- the ${layer.name} layer (run beside other layers), ${done.took} ----\n${done.output}\n---- end of the ${layer.name} layer ----\n`,
    );
    return done;
  };
  const third = E2E_THIRD_LANE.join(',');
  console.log(
    `\nThree lanes: the ${unit.name} layer; the ${integration.name} layer, then ${e2e.name}; ${e2eThird.name} (the e2e files ${E2E_THIRD_LANE.join(', ')}), then ${pseudo.name}. Each workbench layer's output is printed whole when it ends.\n`,
  );
  const lanesStart = machineTicks();
  const workbenchLane = (async () => [await apart(integration), await apart(e2e, { E2E_SKIP_FILES: third })])();
  const thirdLane = (async () => [await apart(e2eThird, { E2E_FILES: third }), await apart(pseudo)])();
  const unitSecond = { name: 'unit-2' };
  const unitSecondFile = resultFile(unitSecond);
  const mocha = path.join('node_modules', '.bin', 'mocha');
  const unitSecondLane = (async () => {
    console.log(
      `npm test: the ${unitSecond.name} layer (unit files ${UNIT_SECOND_LANE.join(', ')}) starts; its output is printed when it ends.`,
    );
    // --no-config: a --spec beside the config's would add to its glob, not replace it. The config's other options, read from it.
    const { reporter, timeout, 'node-option': nodeOptions = [] } = JSON.parse(fs.readFileSync('.mocharc.json', 'utf8'));
    const options = ['--reporter', reporter, '--timeout', String(timeout), ...nodeOptions.map((o) => `--${o}`)];
    const done = await runApart(mocha, ['--no-config', ...options, ...UNIT_SECOND_LANE], {
      TEST_RESULT_FILE: unitSecondFile,
    });
    console.log(
      `\n---- the ${unitSecond.name} layer (run beside other layers), ${done.took} ----\n${done.output}\n---- end of the ${unitSecond.name} layer ----\n`,
    );
    return done;
  })();
  const unitRun = await runApart(
    mocha,
    ['--config', '.mocharc.json', ...UNIT_SECOND_LANE.flatMap((f) => ['--ignore', f])],
    { TEST_RESULT_FILE: files.get(unit) },
    { inherit: true },
  );
  record(unit, files.get(unit), unitRun);
  record(unitSecond, unitSecondFile, await unitSecondLane);
  const [integrationRun, e2eRun] = await workbenchLane;
  const [thirdRun, pseudoRun] = await thirdLane;
  record(integration, files.get(integration), integrationRun);
  record(e2e, files.get(e2e), e2eRun);
  record(e2eThird, files.get(e2eThird), thirdRun);
  record(pseudo, files.get(pseudo), pseudoRun);
  lines.push(`the machine during the lanes: ${busySince(lanesStart)}`);
}
for (const layer of remaining) {
  const file = resultFile(layer);
  record(layer, file, run(layer.script, { TEST_RESULT_FILE: file }));
}
await checksRecorded;
console.log('\n' + [...checkLines, ...lines].join('\n'));
failed += failedChecks;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
