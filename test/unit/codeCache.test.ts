import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { buildSync } from 'esbuild';
import { codeCacheFile, loadWithCodeCache } from '../../src/services/codeCache';

interface Probe {
  answer(): string;
  dir: string;
  file: string;
  sibling: string;
}

/** A CommonJS bundle like esbuild's: it requires a file next to it and reads its own __dirname. */
function bundleText(answer: string): string {
  return `"use strict";
const sibling = require('./sibling.js');
exports.answer = function answer() { return ${JSON.stringify(answer)}; };
exports.dir = __dirname;
exports.file = __filename;
exports.sibling = sibling.name;
`;
}

interface ChildLoad {
  cache: string;
  answer: string;
  saved: { file?: string; error?: string };
}

describe('loading the extension with a V8 code cache (src/services/codeCache.ts)', () => {
  let dir: string;
  let bundle: string;
  let cacheDir: string;
  let loaderJs: string;

  before(() => {
    // The loader built on its own, for child processes: V8 keeps scripts it compiled in memory, so only a
    // fresh process shows whether a cache on disk is used or refused, as a new window would.
    loaderJs = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'code-cache-loader-')), 'codeCache.js');
    buildSync({ entryPoints: [path.resolve('src/services/codeCache.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: loaderJs, logLevel: 'error' });
  });
  after(() => fs.rmSync(path.dirname(loaderJs), { recursive: true, force: true }));

  /** Loads the bundle in a new Node process (as a new window does), calls it, then writes the cache. */
  function loadInNewProcess(): ChildLoad {
    const script = `const { loadWithCodeCache } = require(${JSON.stringify(loaderJs)});
const loaded = loadWithCodeCache(${JSON.stringify(bundle)}, ${JSON.stringify(cacheDir)});
const answer = loaded.exports.answer();
loaded.saveCache().then((saved) => console.log(JSON.stringify({ cache: loaded.cache, answer, saved })));`;
    const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    return JSON.parse(run.stdout) as ChildLoad;
  }

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'code-cache-'));
    bundle = path.join(dir, 'dist', 'main.js');
    cacheDir = path.join(dir, 'storage', 'code-cache');
    fs.mkdirSync(path.dirname(bundle));
    fs.writeFileSync(path.join(dir, 'dist', 'sibling.js'), 'exports.name = "the sibling";\n');
    fs.writeFileSync(bundle, bundleText('first'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('runs the bundle as require would: its exports, its own require and __dirname', () => {
    const loaded = loadWithCodeCache<Probe>(bundle, cacheDir);
    assert.equal(loaded.exports.answer(), 'first');
    assert.equal(loaded.exports.dir, path.dirname(bundle));
    assert.equal(loaded.exports.file, bundle);
    assert.equal(loaded.exports.sibling, 'the sibling');
    assert.equal(loaded.cache, 'none', 'no cache the first time');
    assert.ok(!fs.existsSync(cacheDir), 'loading writes nothing: the cache is written later, by saveCache');
  });

  it('writes the cache on request, and the next window uses it', () => {
    const first = loadInNewProcess();
    assert.deepEqual([first.cache, first.answer], ['none', 'first']);
    assert.equal(first.saved.file, codeCacheFile(cacheDir, bundle, fs.readFileSync(bundle, 'utf8')));
    assert.ok(fs.statSync(first.saved.file).size > 0);
    const second = loadInNewProcess();
    assert.deepEqual([second.cache, second.answer], ['used', 'first']);
    assert.deepEqual(second.saved, {}, 'a used cache is not written again');
  });

  it('never runs an old cache for a changed bundle of the same length, and removes the old cache when it writes the new one', () => {
    const old = loadInNewProcess();
    fs.writeFileSync(bundle, bundleText('other'));
    assert.equal(fs.statSync(bundle).size, Buffer.byteLength(bundleText('first')), 'the same length (V8 checks only the length)');
    const changed = loadInNewProcess();
    assert.deepEqual([changed.cache, changed.answer], ['none', 'other']);
    assert.notEqual(changed.saved.file, old.saved.file);
    assert.deepEqual(fs.readdirSync(cacheDir), [path.basename(changed.saved.file!)]);
  });

  it('loads a bundle whose cache is damaged, and replaces the cache', () => {
    const saved = loadInNewProcess().saved;
    fs.writeFileSync(saved.file!, Buffer.from('not a V8 code cache at all'));
    const damaged = loadInNewProcess();
    assert.deepEqual([damaged.cache, damaged.answer], ['rejected', 'first']);
    assert.equal(loadInNewProcess().cache, 'used', 'the damaged cache was replaced');
  });

  it('says why a cache could not be written, and the bundle still works', async () => {
    fs.mkdirSync(path.dirname(cacheDir), { recursive: true });
    fs.writeFileSync(cacheDir, 'a file where the cache folder should be');
    const loaded = loadWithCodeCache<Probe>(bundle, cacheDir);
    assert.equal(loaded.exports.answer(), 'first');
    const saved = await loaded.saveCache();
    assert.equal(saved.file, undefined);
    assert.match(saved.error ?? '', /EEXIST|ENOTDIR/);
  });

  it('reports a bundle that throws as require would', () => {
    fs.writeFileSync(bundle, 'throw new Error("broken bundle");\n');
    assert.throws(() => loadWithCodeCache(bundle, cacheDir), /broken bundle/);
  });
});
