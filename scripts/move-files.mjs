// Moves source files and rewrites every reference to them: the mechanical tool of a restructuring (issue 38).
//
//   node scripts/move-files.mjs <moves.json>      git mv each file, then rewrite imports and path strings
//   node scripts/move-files.mjs --fix <moves.json> only rewrite references that still name an old path (after a merge
//                                                  brought in files written before the move)
//
// moves.json is an object { "src/old/file.ts": "src/new/file.ts", … }. Relative imports (`from './x'`, `import('./x')`,
// `require('./x')`) in TypeScript and JavaScript files are resolved from each file's old place and written again from its
// new place, in the form they had (no extension, a folder's index, or a full file name). Repository paths written in
// text (`src/old/file.ts`, `src/old/file`) in code, scripts, JSON and Markdown become the new path.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const fixOnly = args[0] === '--fix';
const movesFile = fixOnly ? args[1] : args[0];
if (!movesFile) {
  console.error('Usage: node scripts/move-files.mjs [--fix] <moves.json>');
  process.exit(2);
}
const root = process.cwd();
const moves = new Map(
  Object.entries(JSON.parse(fs.readFileSync(movesFile, 'utf8'))).map(([from, to]) => [
    path.resolve(root, from),
    path.resolve(root, to),
  ]),
);
for (const [from] of moves)
  if (!fixOnly && !fs.existsSync(from)) throw new Error(`${path.relative(root, from)} does not exist`);

const SKIP = new Set(['node_modules', '.git', 'out', 'dist', '.vscode-test', 'coverage']);
function listFiles(dir, out = []) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) listFiles(full, out);
    else if (/\.(ts|mts|js|mjs|cjs|json|md)$/.test(entry.name)) out.push(full);
  }
  return out;
}

/** Where a file is now (fix mode) or was (move mode), and where it is after the move. */
const placeAfter = (file) => (fixOnly ? file : (moves.get(file) ?? file));
const exists = (file) => fs.existsSync(file) && fs.statSync(file).isFile();
/** The file an import names, as it was before the move: the import's own form, `.ts`, or a folder's `index.ts`. */
function resolveOld(fromDir, spec) {
  const base = path.resolve(fromDir, spec);
  for (const [candidate, form] of [
    [base, 'exact'],
    [base + '.ts', 'noext'],
    [base + '.d.ts', 'noext'],
    [path.join(base, 'index.ts'), 'dir'],
  ]) {
    if (exists(candidate) || moves.has(candidate)) return { file: candidate, form };
  }
  return undefined;
}

function specFor(fromDir, target, form) {
  let to = target;
  if (form === 'noext') to = to.replace(/(\.d)?\.ts$/, '');
  if (form === 'dir') to = path.dirname(to);
  let rel = path.relative(fromDir, to).split(path.sep).join('/');
  // A file `x.ts` named from inside a folder `x/` beside it: the import leaves the folder.
  if (rel === '') rel = '../' + path.basename(to);
  if (!rel.startsWith('.')) rel = './' + rel;
  return rel;
}

const IMPORT = /((?:\bfrom|\bimport|\brequire|\bimport\s*\()\s*\(?\s*)(['"])(\.\.?\/[^'"\n]*)\2/g;
const textMoves = [...moves].map(([from, to]) => [
  path.relative(root, from).split(path.sep).join('/'),
  path.relative(root, to).split(path.sep).join('/'),
]);
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Where each moved file came from, for --fix. */
const movedFrom = new Map([...moves].map(([from, to]) => [to, from]));

let changed = 0;
for (const file of listFiles(root)) {
  const text = fs.readFileSync(file, 'utf8');
  let next = text;
  if (/\.(ts|mts|js|mjs|cjs)$/.test(file)) {
    const oldDir = path.dirname(file);
    const newDir = path.dirname(placeAfter(file));
    // After a merge, a moved file may carry imports written at its old place: resolve those from there.
    const formerDir = fixOnly && movedFrom.has(file) ? path.dirname(movedFrom.get(file)) : undefined;
    next = next.replace(IMPORT, (whole, lead, quote, spec) => {
      let found = resolveOld(oldDir, spec);
      const fromFormer = !found && formerDir !== undefined;
      if (fromFormer) found = resolveOld(formerDir, spec);
      if (!found) return whole;
      const target = moves.get(found.file) ?? found.file;
      if (target === found.file && oldDir === newDir && !fromFormer) return whole;
      return `${lead}${quote}${specFor(newDir, target, found.form)}${quote}`;
    });
  }
  for (const [from, to] of textMoves) {
    if (!next.includes(from.replace(/\.ts$/, ''))) continue;
    next = next.replace(new RegExp(`${escape(from)}(?![\\w./-])`, 'g'), to);
    next = next.replace(
      new RegExp(`${escape(from.replace(/\.ts$/, ''))}(?![\\w/-]|\\.(?:ts|js)\\b)`, 'g'),
      to.replace(/\.ts$/, ''),
    );
  }
  if (next !== text) {
    fs.writeFileSync(file, next);
    changed++;
  }
}

if (!fixOnly) {
  for (const [from, to] of moves) {
    fs.mkdirSync(path.dirname(to), { recursive: true });
    execFileSync('git', ['mv', path.relative(root, from), path.relative(root, to)], { stdio: 'inherit' });
  }
}
console.log(`${fixOnly ? 'fixed' : `moved ${moves.size} files,`} rewrote ${changed} files`);
