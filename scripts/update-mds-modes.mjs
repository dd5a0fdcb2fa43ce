#!/usr/bin/env node
// Regenerates src/core/analysis/modeTransitions.json, the MDS 2.0 vehicle state machines, from the vendored official
// mode definitions (schemas/mds-modes/modes/*.md: openmobilityfoundation/mobility-data-specification, tag 2.0.2,
// CC BY 4.0). The parsing is src/core/analysis/modeMachines.ts; test/unit/modeMachines.test.ts checks that the
// committed JSON is what the vendored text gives.
//
//   node scripts/update-mds-modes.mjs                       regenerate the JSON from the vendored text
//   node scripts/update-mds-modes.mjs --from-git <gitdir> [--ref 2.0.2]
//                                                           refresh the vendored text from a (bare) git dir first
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const vendorDir = join(root, 'schemas', 'mds-modes');
const source = JSON.parse(readFileSync(join(vendorDir, 'source.json'), 'utf8'));
const MODES = ['micromobility', 'car-share', 'delivery-robots', 'passenger-services'];

const args = process.argv.slice(2);
const fromGit = args.indexOf('--from-git');
if (fromGit >= 0) {
  const gitDir = args[fromGit + 1];
  const ref = args[args.indexOf('--ref') + 1] && args.includes('--ref') ? args[args.indexOf('--ref') + 1] : source.ref;
  const git = (a) => execFileSync('git', ['--git-dir', gitDir, ...a], { maxBuffer: 16 * 1024 * 1024 });
  for (const file of source.files) writeFileSync(join(vendorDir, file), git(['show', `${ref}:${file}`]));
  writeFileSync(join(vendorDir, 'LICENSE'), git(['show', `${ref}:LICENSE`]));
  source.ref = ref;
  source.commit = git(['rev-parse', `${ref}^{commit}`])
    .toString()
    .trim();
  writeFileSync(join(vendorDir, 'source.json'), `${JSON.stringify(source, null, 2)}\n`);
}

const temp = mkdtempSync(join(tmpdir(), 'mds-modes-'));
try {
  const outfile = join(temp, 'modeMachines.cjs');
  buildSync({
    entryPoints: [join(root, 'src/core/analysis/modeMachines.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile,
    logLevel: 'error',
  });
  const { parseModeMachine, parseProwStates } = createRequire(import.meta.url)(outfile);
  const machines = {
    source: { repository: source.repository, ref: source.ref, commit: source.commit },
    prowStates: parseProwStates(readFileSync(join(vendorDir, 'modes', 'vehicle_states.md'), 'utf8')),
    modes: Object.fromEntries(
      MODES.map((mode) => [mode, parseModeMachine(readFileSync(join(vendorDir, 'modes', `${mode}.md`), 'utf8'))]),
    ),
  };
  writeFileSync(
    join(root, 'src/core/analysis/modeTransitions.json'),
    `${JSON.stringify(machines, null, 1).replace(/\[\n\s+("[^"]+"),\n\s+("[^"]+"),\n\s+("[^"]+")\n\s+\]/g, '[$1, $2, $3]')}\n`,
  );
  console.log(
    `update-mds-modes: ${MODES.map((m) => `${m} ${machines.modes[m].transitions.length}`).join(', ')} transitions; PROW: ${machines.prowStates.join(', ')}`,
  );
} finally {
  rmSync(temp, { recursive: true, force: true });
}
