// Loads a CommonJS bundle with a V8 code cache, so that a window's start does not compile the
// extension's code again each time (compiling dist/main.js is most of what activation costs). The cache
// lives in the extension's global storage, is named by a hash of the bundle's text (V8 itself checks
// only the length, so an edited bundle of the same length must never meet an old cache), and is
// written after activation, never during it. Any failure falls back to a plain `require`.
// vscode-free (tested in plain Node); only the extension's entry (src/extension.ts) uses it.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

/** What loading found: whether V8 took the cache, and how to write a new one once the code has run. */
export interface CachedModule<T> {
  exports: T;
  /** `used`: the cache was read and accepted; `none`: there was none; `rejected`: V8 refused it; `off`: loaded by plain require. */
  cache: 'used' | 'none' | 'rejected' | 'off';
  /**
   * Writes the cache for the code compiled so far (call it after activation, when the functions
   * activation ran are compiled too). Resolves to the file written, or undefined when there was nothing
   * to do or it failed (a cache is an optimisation: failures are returned, never thrown).
   */
  saveCache(): Promise<{ file?: string; error?: string }>;
}

const CACHE_PREFIX = 'code-cache-';

/** The cache file for a bundle's text: `<cacheDir>/code-cache-<name>-<sha256 of the text, 24 hex>.bin`. */
export function codeCacheFile(cacheDir: string, bundleFile: string, source: string): string {
  const digest = createHash('sha256').update(source, 'utf8').digest('hex').slice(0, 24);
  return path.join(cacheDir, `${CACHE_PREFIX}${path.basename(bundleFile, '.js')}-${digest}.bin`);
}

/** Reads a file, or undefined when it is not there or cannot be read. */
function readIfThere(file: string): Buffer | undefined {
  try {
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Loads `bundleFile` (CommonJS, as esbuild writes it) as `require` would, with the cache in
 * `cacheDir` when one matches its text. The bundle's own `require` and `__dirname` are its file's.
 */
export function loadWithCodeCache<T>(bundleFile: string, cacheDir: string): CachedModule<T> {
  let source: string;
  let script: vm.Script;
  let cacheFile: string;
  let cache: CachedModule<T>['cache'];
  try {
    source = fs.readFileSync(bundleFile, 'utf8');
    cacheFile = codeCacheFile(cacheDir, bundleFile, source);
    const cachedData = readIfThere(cacheFile);
    // The same wrapper Node puts around a CommonJS module, so the bundle runs as if required.
    script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: bundleFile, cachedData });
    cache = cachedData === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : 'used';
  } catch {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return { exports: require(bundleFile) as T, cache: 'off', saveCache: () => Promise.resolve({}) };
  }
  const module = { exports: {} as T };
  const wrapper = script.runInThisContext() as (exports: T, require: NodeJS.Require, module: { exports: T }, filename: string, dirname: string) => void;
  wrapper.call(module.exports, module.exports, createRequire(bundleFile), module, bundleFile, path.dirname(bundleFile));
  const saveCache = async (): Promise<{ file?: string; error?: string }> => {
    if (cache === 'used') return {};
    try {
      await fs.promises.mkdir(cacheDir, { recursive: true });
      const temporary = `${cacheFile}.${process.pid}.tmp`;
      await fs.promises.writeFile(temporary, script.createCachedData());
      await fs.promises.rename(temporary, cacheFile);
      // Caches of earlier versions of this bundle are of no more use.
      const stem = `${CACHE_PREFIX}${path.basename(bundleFile, '.js')}-`;
      for (const name of await fs.promises.readdir(cacheDir)) {
        if (name.startsWith(stem) && path.join(cacheDir, name) !== cacheFile) await fs.promises.rm(path.join(cacheDir, name), { force: true });
      }
      cache = 'used';
      return { file: cacheFile };
    } catch (err) {
      return { error: err instanceof Error ? err.message : String(err) };
    }
  };
  return { exports: module.exports, cache, saveCache };
}
