#!/usr/bin/env node
// `npm start`: try the extension by hand. Builds it, starts the local sandbox provider (when the CLI has a
// working `sandbox` command), installs the VSIX into a VS Code (code-server, see scripts/vscode-env.mjs)
// on 127.0.0.1 with a small demo workspace, and prints the address to open. Ctrl-C stops all of it.
// Env: PORT (code-server's port; default a free one).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import {
  CACHE_DIR, PROJECT_ROOT, build, ensureVSCode, fail, installCleanup, installVsix, packageVsix, spawnGroup,
  startCodeServer, stopGroup,
} from './vscode-env.mjs';

const START_DIR = path.join(CACHE_DIR, 'start');
const DEMO_DIR = path.join(CACHE_DIR, 'demo-workspace');
let stopping = false;

/**
 * Starts `node dist/cli.js sandbox --json` and waits for its one JSON line (printed once it listens).
 * Returns undefined, after a note, when the CLI has no working sandbox command.
 */
async function startSandbox() {
  const cli = path.join(PROJECT_ROOT, 'dist', 'cli.js');
  const logFile = path.join(START_DIR, 'sandbox.log');
  const child = spawnGroup(process.execPath, [cli, 'sandbox', '--json'], { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const logStream = fs.createWriteStream(logFile);
  child.stderr.pipe(logStream);
  const lines = readline.createInterface({ input: child.stdout });
  const first = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ error: 'printed no line within 15s' }), 15_000);
    lines.once('line', (line) => { clearTimeout(timer); resolve({ line }); });
    child.once('exit', (code) => { clearTimeout(timer); resolve({ error: `exited with code ${code} before printing a line` }); });
  });
  // Later lines (request logs) go to the log file, so the pipe never fills up.
  lines.on('line', (line) => logStream.write(`${line}\n`));
  let info;
  try {
    info = first.line !== undefined ? JSON.parse(first.line) : undefined;
  } catch {
    first.error = `printed "${first.line.slice(0, 80)}" instead of one JSON line`;
  }
  if (!info || typeof info !== 'object') {
    await stopGroup(child);
    console.log(`Note: no local sandbox (node dist/cli.js sandbox --json ${first.error ?? 'printed no JSON object'}); going on without it.`);
    return undefined;
  }
  child.once('exit', (code) => stopping || console.log(`Note: the sandbox stopped (exit ${code}); see ${path.relative(PROJECT_ROOT, logFile)}.`));
  return { child, info, logFile };
}

/** Prints what the sandbox announced: its address, environments and demo credential folder. */
function describeSandbox(info) {
  const out = ['Sandbox:'];
  const url = info.url ?? info.baseUrl ?? info.origin;
  if (url) out.push(`  address:          ${url}`);
  const envs = Array.isArray(info.environments) ? info.environments : Object.values(info.environments ?? {});
  for (const env of envs) {
    if (env && typeof env === 'object') out.push(`  environment:      ${env.name ?? env.id ?? '?'}  ${env.baseUrl ?? env.url ?? ''}`.trimEnd());
    else out.push(`  environment:      ${String(env)}`);
  }
  const demo = info.demo && typeof info.demo === 'object' ? info.demo : {};
  const folder = demo.dir ?? (demo.credentialFile ? path.dirname(demo.credentialFile) : undefined);
  if (folder) out.push(`  demo credentials: ${folder}`);
  if (demo.credentialFile) out.push(`    credential file: ${demo.credentialFile}`);
  if (demo.issuer || demo.kid) out.push(`    issuer ${demo.issuer ?? '?'}, kid ${demo.kid ?? '?'}`);
  out.push(`  (announced: ${JSON.stringify(info)})`);
  return out.join('\n');
}

function writeDemoWorkspace() {
  fs.mkdirSync(DEMO_DIR, { recursive: true });
  const readme = path.join(DEMO_DIR, 'README.md');
  if (!fs.existsSync(readme)) {
    fs.writeFileSync(readme, [
      '# Mobility API Explorer demo workspace',
      '',
      'Opened by `npm start`. Try the commands under "Mobility API" in the command palette (F1).',
      'The terminal that runs `npm start` lists the local sandbox environments and the demo credential folder.',
      '',
    ].join('\n'));
  }
}

async function main() {
  let sandbox;
  let server;
  installCleanup(async () => {
    stopping = true;
    console.log('\nStopping VS Code and the sandbox...');
    await Promise.all([server?.stop(), stopGroup(sandbox?.child)]);
  });
  await ensureVSCode();
  build([]);
  fs.mkdirSync(START_DIR, { recursive: true });
  sandbox = await startSandbox();
  writeDemoWorkspace();
  const dirs = { extensionsDir: path.join(START_DIR, 'extensions'), userDataDir: path.join(START_DIR, 'user-data') };
  installVsix(packageVsix(START_DIR), dirs);
  server = await startCodeServer({
    ...dirs,
    folder: DEMO_DIR,
    logFile: path.join(START_DIR, 'code-server.log'),
    port: process.env.PORT ? Number(process.env.PORT) : undefined,
  });

  const lines = ['', `Open VS Code with the extension at:  ${server.workbenchUrl()}`, `Demo workspace:  ${DEMO_DIR}`];
  if (sandbox) lines.push(describeSandbox(sandbox.info));
  if (spawnSync('sh', ['-c', 'command -v code'], { stdio: 'ignore' }).status === 0) {
    lines.push(`Desktop VS Code is on PATH too: code --extensionDevelopmentPath=${PROJECT_ROOT} ${DEMO_DIR}`);
  }
  lines.push('Press Ctrl-C to stop VS Code and the sandbox.', '');
  console.log(lines.join('\n'));

  const code = await new Promise((resolve) => server.child.once('exit', resolve));
  if (stopping) return;
  console.error(`code-server stopped (exit ${code}); see ${path.relative(PROJECT_ROOT, server.logFile)}.`);
  await stopGroup(sandbox?.child);
  process.exit(1);
}

main().catch(fail);
