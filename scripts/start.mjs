#!/usr/bin/env node
// `npm start`: the main job for a new user. Builds the extension, installs its VSIX into a VS Code
// (code-server, see scripts/vscode-env.mjs) on 127.0.0.1 with a small demo workspace and the setting
// `mobilityApi.sandbox.autoStart` on, so the local sandbox starts inside VS Code with its demo credential
// stored and bound; prints the address to open. Ctrl-C stops all of it.
// Env: PORT (code-server's port; default a free one).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  CACHE_DIR,
  PROJECT_ROOT,
  build,
  ensureVSCode,
  fail,
  installCleanup,
  installVsix,
  log,
  packageVsix,
  startCodeServer,
} from './vscode-env.mjs';

const START_DIR = path.join(CACHE_DIR, 'start');
// In sight, not under the hidden .vscode-test: the dialogs (Fetch Hours' folder, Save) open in the workspace.
const DEMO_DIR = path.join(PROJECT_ROOT, 'demo-workspace');
let stopping = false;

function writeDemoWorkspace() {
  fs.mkdirSync(DEMO_DIR, { recursive: true });
  fs.writeFileSync(
    path.join(DEMO_DIR, 'README.md'),
    [
      '# Mobility API Explorer demo workspace',
      '',
      'Opened by `npm start`. The local sandbox is starting inside VS Code, with its demo credential bound:',
      '',
      '1. Open the **Mobility API** view in the activity bar.',
      '2. Under **Local Sandbox**, click the list icon next to "Sandbox · MDS staging" (List Vehicles).',
      '3. Try **Generate Token** and **Decode JWT** from the command palette (F1, then "Mobility API").',
      '',
      'Paste any token into a file here and hover it, or select it and run "Mobility API: Decode JWT".',
      '',
    ].join('\n'),
  );
}

async function main() {
  let server;
  installCleanup(async () => {
    stopping = true;
    console.log('\nStopping VS Code (and the sandbox inside it)...');
    await server?.stop();
  });
  const started = Date.now();
  // Four steps, each named as it starts: the first run spends most of its time in step 1 (about 4 minutes on 2 cores,
  // with a line every 15 s saying what it is doing); later runs skip it and take under a minute.
  log('step 1 of 4: a VS Code (code-server) and Chromium to run it (installed on first use only)');
  await ensureVSCode();
  log('step 2 of 4: building the extension');
  build([]);
  fs.mkdirSync(START_DIR, { recursive: true });
  writeDemoWorkspace();
  const dirs = { extensionsDir: path.join(START_DIR, 'extensions'), userDataDir: path.join(START_DIR, 'user-data') };
  // The demo workspace's README opens on the first start (VS Code's "readme" start-up editor), not on every one.
  const firstStart = !fs.existsSync(path.join(dirs.userDataDir, 'User', 'settings.json'));
  log('step 3 of 4: packaging the extension as a VSIX and installing it');
  installVsix(packageVsix(START_DIR), dirs);
  log('step 4 of 4: starting VS Code');
  server = await startCodeServer({
    ...dirs,
    folder: DEMO_DIR,
    logFile: path.join(START_DIR, 'code-server.log'),
    port: process.env.PORT ? Number(process.env.PORT) : undefined,
    settings: { 'mobilityApi.sandbox.autoStart': true, 'workbench.startupEditor': firstStart ? 'readme' : 'none' },
  });

  const lines = [
    '',
    `Ready after ${Math.round((Date.now() - started) / 1000)} s.`,
    `Open VS Code with the extension at:  ${server.workbenchUrl()}`,
    `Demo workspace:  ${DEMO_DIR}`,
    'The local sandbox starts inside that VS Code with its demo credential (see the Mobility API view).',
    'For curl and scripts, a sandbox of its own: node dist/cli.js sandbox',
  ];
  if (spawnSync('sh', ['-c', 'command -v code'], { stdio: 'ignore' }).status === 0) {
    lines.push(`Desktop VS Code is on PATH too: code --extensionDevelopmentPath=${PROJECT_ROOT} ${DEMO_DIR}`);
  }
  lines.push('Press Ctrl-C to stop.', '');
  console.log(lines.join('\n'));

  const code = await new Promise((resolve) => server.child.once('exit', resolve));
  if (stopping) return;
  console.error(`code-server stopped (exit ${code}); see ${path.relative(PROJECT_ROOT, server.logFile)}.`);
  process.exit(1);
}

main().catch(fail);
