#!/usr/bin/env node
// `npm run l10n`: extracts every `l10n.t(...)` / `vscode.l10n.t(...)` string under src/ with @vscode/l10n-dev
// into l10n/bundle.l10n.json, keys sorted so that two branches that add strings regenerate the same file.
//   --check   writes nothing; fails (exit 1) when l10n/bundle.l10n.json differs from what the sources give
//             (run by `npm test` beside typecheck and lint).
//   --pseudo  writes only the qps-ploc pseudo-locale files (l10n/bundle.l10n.qps-ploc.json and
//             package.nls.qps-ploc.json) from the committed bundle and package.nls.json, for the pseudo-locale
//             e2e run (scripts/run-e2e.mjs with E2E_LOCALE=qps-ploc). They are generated, not committed
//             (.gitignore); --pseudo-clean removes them.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BUNDLE = path.join(ROOT, 'l10n', 'bundle.l10n.json');
const CLI = path.join(ROOT, 'node_modules', '@vscode', 'l10n-dev', 'dist', 'cli.js');
// Compiles l10n-dev's tree-sitter queries once instead of once per file: 38 processor-seconds become 2.
const QUERY_CACHE = path.join(ROOT, 'scripts', 'l10n-query-cache.cjs');
const args = new Set(process.argv.slice(2));

function l10nDev(cliArgs) {
  const r = spawnSync(process.execPath, ['--require', QUERY_CACHE, CLI, ...cliArgs], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) {
    process.stderr.write(r.stdout + r.stderr);
    throw new Error(`l10n-dev ${cliArgs[0]} failed (exit ${r.status})`);
  }
}

/** The bundle the sources give, as the exact text the committed file must have. */
function extractedBundle() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mobility-l10n-'));
  try {
    l10nDev(['export', '--outDir', tmp, 'src']);
    const file = path.join(tmp, 'bundle.l10n.json');
    const bundle = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
    const sorted = Object.fromEntries(
      Object.keys(bundle)
        .sort()
        .map((k) => [k, bundle[k]]),
    );
    return JSON.stringify(sorted, null, 2) + '\n';
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const PSEUDO_FILES = [
  path.join(ROOT, 'l10n', 'bundle.l10n.qps-ploc.json'),
  path.join(ROOT, 'package.nls.qps-ploc.json'),
];

function main() {
  if (args.has('--pseudo')) {
    l10nDev(['generate-pseudo', '--language', 'qps-ploc', BUNDLE, path.join(ROOT, 'package.nls.json')]);
    console.log('wrote l10n/bundle.l10n.qps-ploc.json and package.nls.qps-ploc.json');
    return;
  }
  if (args.has('--pseudo-clean')) {
    for (const f of PSEUDO_FILES) fs.rmSync(f, { force: true });
    return;
  }
  const text = extractedBundle();
  if (args.has('--check')) {
    const current = fs.existsSync(BUNDLE) ? fs.readFileSync(BUNDLE, 'utf8') : '';
    if (current !== text) {
      const want = Object.keys(JSON.parse(text));
      const have = current ? Object.keys(JSON.parse(current)) : [];
      const missing = want.filter((k) => !have.includes(k));
      const extra = have.filter((k) => !want.includes(k));
      console.error('l10n/bundle.l10n.json is stale: run `npm run l10n` and commit the result.');
      for (const k of missing.slice(0, 10)) console.error(`  missing: ${JSON.stringify(k)}`);
      for (const k of extra.slice(0, 10)) console.error(`  no longer in the sources: ${JSON.stringify(k)}`);
      process.exit(1);
    }
    console.log(`l10n/bundle.l10n.json is up to date (${Object.keys(JSON.parse(text)).length} strings).`);
    return;
  }
  fs.mkdirSync(path.dirname(BUNDLE), { recursive: true });
  fs.writeFileSync(BUNDLE, text);
  console.log(`wrote ${path.relative(ROOT, BUNDLE)} (${Object.keys(JSON.parse(text)).length} strings)`);
}

try {
  main();
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
}
