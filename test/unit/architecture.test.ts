import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

/**
 * ARCHITECTURE.md is a code map a newcomer reads in one sitting, so it must stay short and true: its core domains and
 * bundles are the ones lint and the build know, and the tree it maps keeps files and folders small (issue 38).
 */
const ROOT = path.resolve('.');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const MAX_WORDS = 1200;
const MAX_LINES = 400;
const MAX_FILES_PER_FOLDER = 20;

/** The rows of the Markdown table that follows `heading`, as cells without backquotes. */
function tableAfter(markdown: string, heading: string): string[][] {
  const start = markdown.indexOf(`## ${heading}`);
  assert.ok(start >= 0, `ARCHITECTURE.md has a section "${heading}"`);
  const lines = markdown.slice(start).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim().replace(/`/g, '')),
    );
  }
  return rows;
}

/** `CORE_DOMAINS` of eslint.config.mjs: each domain and the domains it may import. */
function lintDomains(): Map<string, string[]> {
  const config = read('eslint.config.mjs');
  const block = /const CORE_DOMAINS = \{([\s\S]*?)\n\};/.exec(config)?.[1];
  assert.ok(block, 'eslint.config.mjs defines CORE_DOMAINS');
  const domains = new Map<string, string[]>();
  for (const match of block.matchAll(/^\s*(\w+): \[([^\]]*)\]/gm)) {
    domains.set(
      match[1],
      [...match[2].matchAll(/'(\w+)'/g)].map((m) => m[1]),
    );
  }
  return domains;
}

function walk(dir: string, visit: (dir: string, files: string[]) => void): void {
  const entries = fs.readdirSync(dir, { withFileTypes: true });
  visit(
    dir,
    entries.filter((e) => e.isFile()).map((e) => e.name),
  );
  for (const entry of entries) if (entry.isDirectory()) walk(path.join(dir, entry.name), visit);
}

describe('ARCHITECTURE.md: a one-screen code map that matches the code (issue 38)', () => {
  const map = read('ARCHITECTURE.md');

  it(`is at most ${MAX_WORDS} words`, () => {
    const words = map.split(/\s+/).filter(Boolean).length;
    assert.ok(words <= MAX_WORDS, `ARCHITECTURE.md has ${words} words; keep it to ${MAX_WORDS}`);
  });

  it('lists the core domains of eslint.config.mjs, each with the domains lint lets it import', () => {
    const lint = lintDomains();
    const rows = tableAfter(map, 'Core domains');
    assert.deepEqual(rows.map((r) => r[0]).sort(), [...lint.keys()].sort());
    for (const [domain, , mayImport] of rows) {
      const written = mayImport === '—' ? [] : mayImport.split(',').map((d) => d.trim());
      assert.deepEqual(written.sort(), [...lint.get(domain)!].sort(), `the "may import" of ${domain}`);
    }
  });

  it('lists every bundle esbuild.js builds, with its entry', () => {
    const built = [...read('esbuild.js').matchAll(/entryPoints: \['([^']+)'\],\s*outfile: '([^']+)'/g)].map(
      (m) => `${m[2]} ${m[1]}`,
    );
    assert.ok(built.length >= 10, 'esbuild.js lists its bundles as entryPoints and outfile');
    const listed = tableAfter(map, 'Bundles').map((r) => `${r[0]} ${r[1]}`);
    assert.deepEqual(listed.sort(), built.sort());
  });

  it('names only files and folders that exist', () => {
    const missing = [...map.matchAll(/`((?:src|test)\/[\w./<>{},-]+)`/g)]
      .map((m) => m[1])
      .filter((p) => !/[<>{}]/.test(p))
      .filter((p) => !fs.existsSync(path.join(ROOT, p)));
    assert.deepEqual(missing, []);
  });
});

describe('the source tree stays walkable (issue 38)', () => {
  it(`no file of src has more than ${MAX_LINES} lines, no folder more than ${MAX_FILES_PER_FOLDER} files`, () => {
    const long: string[] = [];
    const crowded: string[] = [];
    walk(path.join(ROOT, 'src'), (dir, files) => {
      if (files.length > MAX_FILES_PER_FOLDER) crowded.push(`${path.relative(ROOT, dir)} (${files.length})`);
      for (const file of files.filter((f) => f.endsWith('.ts'))) {
        const lines = fs.readFileSync(path.join(dir, file), 'utf8').split('\n').length - 1;
        if (lines > MAX_LINES) long.push(`${path.relative(ROOT, path.join(dir, file))} (${lines})`);
      }
    });
    assert.deepEqual(
      { long, crowded },
      { long: [], crowded: [] },
      'split a long file by job; give a crowded folder rooms',
    );
  });
});
