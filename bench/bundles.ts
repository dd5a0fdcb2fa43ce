// The bundles a user installs: `node esbuild.js --production` (minified, no source maps), run in a
// folder of its own so that the benchmark neither overwrites dist/ under other people's test runs nor
// measures whatever build dist/ happens to hold. The activation and results-panel figures use this build.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, unlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type * as Esbuild from 'esbuild';
import type { Metafile } from 'esbuild';
import type { ReportedFigure } from './figures';
import { round3 } from './figures';
import { PROJECT_ROOT } from './harness';

const LIMIT_BYTES = 300 * 1024;

/** A production build of the extension, the CLI and the webview in a temporary folder. */
export interface ProductionBuild {
  /** The folder: `dist/`, laid out as in the repository. */
  dir: string;
  /** What activation loads: the entry (a small loader) and the wiring it loads, dist/main.js. */
  extensionJs: string[];
  webviewDir: string;
  remove(): void;
}

/**
 * The variants the activation benchmark compares with the shipped build, to see whether each part of the start-up
 * path still pays for itself: `noSharedModules` builds without esbuild.js's shared module namespaces (`vscode`, `@vscode/l10n`).
 */
export interface BuildVariant {
  noSharedModules?: boolean;
}

/** Runs the project's own build script with `--production` in a temporary folder whose `src` links to ours. */
export function productionBuild(variant: BuildVariant = {}): ProductionBuild {
  const dir = mkdtempSync(join(tmpdir(), 'mobility-bench-build-'));
  symlinkSync(join(PROJECT_ROOT, 'src'), join(dir, 'src'), 'dir');
  // esbuild.js copies proto/ to dist/proto, where the sandbox and gRPC bundles read it (it goes into the VSIX): a
  // copy, not a link, which fs.cpSync would copy as a link and vsce then reads as a file.
  cpSync(join(PROJECT_ROOT, 'proto'), join(dir, 'proto'), { recursive: true });
  // esbuild.js names its entry points and outputs relative to the working folder; esbuild follows the
  // link to the real sources, so tsconfig.json and node_modules are the repository's.
  const flags = ['--production', ...(variant.noSharedModules ? ['--no-shared-modules'] : [])];
  const result = spawnSync(process.execPath, [join(PROJECT_ROOT, 'esbuild.js'), ...flags], {
    cwd: dir,
    encoding: 'utf8',
  });
  // vsce would pack the link as a file; the folder becomes the VSIX staging folder.
  unlinkSync(join(dir, 'src'));
  rmSync(join(dir, 'proto'), { recursive: true, force: true });
  if (result.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `node esbuild.js --production failed (exit ${String(result.status)}):\n${result.stderr}${result.stdout}`,
    );
  }
  return {
    dir,
    extensionJs: [join(dir, 'dist', 'extension.js'), join(dir, 'dist', 'main.js')],
    webviewDir: join(dir, 'dist', 'webview'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

interface Size {
  raw: number;
  gzip: number;
}

function sizeOf(...files: string[]): Size {
  let raw = 0;
  let gzip = 0;
  for (const file of files) {
    raw += statSync(file).size;
    gzip += gzipSync(readFileSync(file), { level: 9 }).length;
  }
  return { raw, gzip };
}

const kb = (bytes: number) => `${round3(bytes / 1024)} KB`;

/** `node_modules/<package>` (scoped too) or the source folder an input of the bundle comes from. */
function ownerOf(input: string): string {
  const path = input.replace(/\\/g, '/');
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (pkg) return pkg[1];
  const src = /(?:^|\/)src\/([^/]+)\//.exec(path);
  return src ? `src/${src[1]}` : path;
}

/** The biggest contributors to one output of a metafile, grouped by package or source folder. */
function contributors(metafile: Metafile, top: number): string {
  const output = Object.values(metafile.outputs).find((o) => o.entryPoint);
  if (!output) return 'no output';
  const groups = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(output.inputs))
    groups.set(ownerOf(input), (groups.get(ownerOf(input)) ?? 0) + bytesInOutput);
  return [...groups.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, bytes]) => `${name} ${kb(bytes)}`)
    .join(', ');
}

/**
 * esbuild's metafile for the two bundles, with the options esbuild.js uses for `--production`
 * (not written to disk: only the analysis is wanted; the sizes come from the real build).
 */
async function metafiles(): Promise<{ extension: Metafile; webview: Metafile }> {
  // Required at run time: esbuild finds its native binary next to its own files, so it cannot be bundled.
  const { build } = createRequire(__filename)('esbuild') as typeof Esbuild;
  const common = {
    bundle: true,
    minify: true,
    sourcemap: false,
    write: false,
    metafile: true,
    logLevel: 'silent',
    absWorkingDir: PROJECT_ROOT,
  } as const;
  const [extension, webview] = await Promise.all([
    // The libraries esbuild.js's LAZY_LIBRARIES makes bundles of their own (required where first used) are not part of it.
    build({
      ...common,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      external: ['vscode', 'csv-parse/sync', 'jsonc-parser/lib/esm/main.js'],
      entryPoints: ['src/main.ts'],
      outfile: 'dist/main.js',
    }),
    build({
      ...common,
      platform: 'browser',
      format: 'iife',
      target: 'es2022',
      entryPoints: ['src/webview-ui/main.ts'],
      outfile: 'dist/webview/main.js',
    }),
  ]);
  return { extension: extension.metafile, webview: webview.metafile };
}

/** The minified extension bundle and the webview bundle (+ its stylesheet) against 300 KB each. */
export async function bundleFigures(production: ProductionBuild): Promise<ReportedFigure[]> {
  const extension = sizeOf(...production.extensionJs);
  const webviewJs = join(production.webviewDir, 'main.js');
  const webviewCss = join(production.webviewDir, 'main.css');
  const webview = sizeOf(webviewJs, webviewCss);
  const css = sizeOf(webviewCss);
  const analysis = await metafiles();
  return [
    {
      name: 'extension bundle, minified (node esbuild.js --production): dist/extension.js + dist/main.js (what activation loads)',
      value: extension.raw / 1024,
      unit: 'KB',
      target: '<= 300 KB',
      met: extension.raw <= LIMIT_BYTES,
      raw: `${extension.raw.toLocaleString('en')} bytes, gzip ${kb(extension.gzip)} (built in a temporary folder); biggest parts: ${contributors(analysis.extension, 6)}`,
    },
    {
      name: 'webview bundle, minified: dist/webview/main.js + main.css',
      value: webview.raw / 1024,
      unit: 'KB',
      target: '<= 300 KB',
      met: webview.raw <= LIMIT_BYTES,
      raw: `main.js ${kb(webview.raw - css.raw)} + main.css ${kb(css.raw)}, gzip ${kb(webview.gzip)} together; biggest parts of main.js: ${contributors(analysis.webview, 6)}`,
    },
  ];
}
