// Builds every bundle: the extension host bundle and the CLI (CommonJS, Node 20, jose bundled in),
// and with --tests / --integration / --e2e / --bench the test and benchmark bundles, built the same way so that tests load
// jose exactly as the shipped code does.
const esbuild = require('esbuild');
const fs = require('fs');
const path = require('path');

const args = new Set(process.argv.slice(2));
const production = args.has('--production');
const watch = args.has('--watch');

/** @type {import('esbuild').BuildOptions} */
const nodeBase = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: production ? false : 'linked',
  minify: production,
  logLevel: 'warning',
  // DuckDB's native binding is loaded from node_modules at run time, never bundled.
  external: ['vscode', '@duckdb/node-api'],
  // .proto files bundled as text: the reflection protocol's and google.rpc.Status (src/core/grpc/bundledProtos.ts).
  loader: { '.proto': 'text' },
  plugins: [],
};

/**
 * @grpc/reflection loads its own reflection.proto from `__dirname/../../proto/…`, which no longer points at it once
 * bundled; this plugin makes it ask src/sandbox/grpc/protoFiles.ts, which finds dist/proto (copied by copyProtos).
 */
const reflectionProtos = {
  name: 'grpc-reflection-protos',
  setup(build) {
    build.onLoad(
      { filter: /@grpc[\\/]reflection[\\/]build[\\/]src[\\/]implementations[\\/]reflection-v1(alpha)?\.js$/ },
      async (args) => {
        const text = await fs.promises.readFile(args.path, 'utf8');
        const finder = JSON.stringify(path.resolve('src/sandbox/grpc/protoFiles.ts'));
        const contents = text.replace(
          /path\.join\(__dirname, '\.\.\/\.\.\/proto\/(grpc\/reflection\/v1(?:alpha)?\/reflection\.proto)'\)/,
          (_, file) => `require(${finder}).protoFile(${JSON.stringify(file)})`,
        );
        if (contents === text)
          throw new Error(
            `${args.path}: the reflection.proto path is no longer where esbuild.js expects it; update the reflection-protos plugin`,
          );
        return { contents, loader: 'js' };
      },
    );
  },
};
nodeBase.plugins.push(reflectionProtos);

/** The sandbox's .proto files (proto/) and @grpc/reflection's, to dist/proto, where the bundles read them at run time. */
function copyProtos() {
  // A folder without proto/ (the activation benchmark's empty extension) has none to copy.
  if (!fs.existsSync('proto')) return;
  fs.rmSync('dist/proto', { recursive: true, force: true });
  fs.cpSync('proto', 'dist/proto', { recursive: true });
  const reflection = path.join(
    path.dirname(require.resolve('@grpc/reflection/package.json')),
    'build',
    'proto',
    'grpc',
    'reflection',
  );
  for (const version of ['v1', 'v1alpha']) {
    fs.mkdirSync(path.join('dist/proto/grpc/reflection', version), { recursive: true });
    fs.copyFileSync(
      path.join(reflection, version, 'reflection.proto'),
      path.join('dist/proto/grpc/reflection', version, 'reflection.proto'),
    );
  }
}

/**
 * A namespace import (`import * as vscode from 'vscode'`, `import * as l10n from '@vscode/l10n'`) of a CommonJS module
 * makes esbuild copy the module's every member into a namespace of the importing file's own (__toESM) while the bundle
 * loads: ~46 files would copy VS Code's whole API object (hundreds of members; a CPU profile of activation in
 * code-server showed it as the largest single cost), ~80 `@vscode/l10n`. One virtual ES module per such module takes it
 * with a plain `require` and exports its members as bindings, which every file shares: no copy at all. VS Code's API
 * exports only the members src/ names (`vscode.window`, `vscode.Uri`…, found by scanning it). Node's builtins stay as
 * they are: reading all their members would read deprecated ones too (`fs.F_OK` warns in the extension host's Node).
 */
const SHARED_MODULES = ['vscode', '@vscode/l10n'];
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function vscodeMembersUsed() {
  const names = new Set();
  for (const file of listFiles('src', '.ts')) {
    for (const match of fs.readFileSync(file, 'utf8').matchAll(/\bvscode\.([A-Za-z_$][\w$]*)/g)) names.add(match[1]);
  }
  return [...names].sort();
}

function sharedModuleSource(spec) {
  const names =
    spec === 'vscode'
      ? vscodeMembersUsed()
      : Object.keys(require(spec)).filter((name) => IDENTIFIER.test(name) && name !== 'default');
  return [
    `const m = require(${JSON.stringify(spec)});`,
    'export default m;',
    ...names.map((name) => `export const ${name} = m.${name};`),
  ].join('\n');
}

const sharedModules = {
  name: 'shared-modules',
  setup(build) {
    const filter = new RegExp(`^(${SHARED_MODULES.map((m) => m.replace(/[/.]/g, '\\$&')).join('|')})$`);
    build.onResolve({ filter }, (args) => {
      // The virtual module's own require: the real module (VS Code's API is external; @vscode/l10n is bundled as usual).
      if (args.namespace === 'shared-modules')
        return args.path === 'vscode' ? { path: 'vscode', external: true } : undefined;
      // Only the project's own imports: a library's require of these stays what it was.
      if (args.kind !== 'import-statement' || !args.importer.startsWith(path.join(__dirname, 'src') + path.sep))
        return undefined;
      return { path: args.path, namespace: 'shared-modules' };
    });
    build.onLoad({ filter: /.*/, namespace: 'shared-modules' }, (args) => ({
      contents: sharedModuleSource(args.path),
      loader: 'js',
      resolveDir: __dirname,
    }));
  },
};

/**
 * Libraries that src/ requires where first used (a `require` inside the function that needs it: csvBody.ts for a CSV
 * answer, tokenJson.ts and requestFileGrpc.ts for JSON as written): in the extension host's bundles each is a bundle of
 * its own, dist/<name>.js, which that `require` loads at run time, so that what activation loads does not carry them
 * (issue 37: 50 KB of the 300 KB budget). The CLI, the sandbox and the tests bundle them as before (dist/cli.js ships
 * alone in the CLI's package).
 */
const LAZY_LIBRARIES = { 'csv-parse/sync': 'csv-parse.js', 'jsonc-parser/lib/esm/main.js': 'jsonc-parser.js' };
const lazyLibraries = {
  name: 'lazy-libraries',
  setup(build) {
    const filter = new RegExp(
      `^(${Object.keys(LAZY_LIBRARIES)
        .map((m) => m.replace(/[/.]/g, '\\$&'))
        .join('|')})$`,
    );
    build.onResolve({ filter }, (args) => {
      // Only the project's own require calls (an import would load it with the bundle anyway).
      if (args.kind !== 'require-call' || !args.importer.startsWith(path.join(__dirname, 'src') + path.sep))
        return undefined;
      return { path: `./${LAZY_LIBRARIES[args.path]}`, external: true };
    });
  },
};
/** The bundles of the libraries above, beside the bundles that require them. */
const lazyLibraryBuilds = () =>
  Object.entries(LAZY_LIBRARIES).map(([spec, file]) => ({
    ...nodeBase,
    entryPoints: [require.resolve(spec)],
    outfile: `dist/${file}`,
  }));

// `--no-shared-modules` builds without it: the activation benchmark measures whether it still pays for itself.
const shellPlugins = [lazyLibraries, ...(args.has('--no-shared-modules') ? [] : [sharedModules])];

/**
 * Unit test bundles leave in node_modules every package that Node's require() loads, so that the one mocha process
 * running ~120 files loads each once, as the product loads its one copy. Bundled, each file carried its own copy of
 * them all: 690 MB built in about 110 processor-seconds, proper-lockfile's signal-exit added a handler per copy for
 * every signal (MaxListenersExceededWarning), and @grpc/reflection's server no longer found the .proto files it reads
 * next to its own code. ESM-only packages (jose, flatbush, hyparquet) are bundled, as in the shipped bundles.
 */
/** One verdict per import for all the unit files' builds (each an esbuild.build of its own, this plugin in each). */
const requirableVerdicts = new Map();
const requirablePackagesExternal = {
  name: 'requirable-packages-external',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:') || args.kind === 'entry-point') return undefined;
      const key = `${args.resolveDir}\0${args.path}`;
      if (!requirableVerdicts.has(key)) requirableVerdicts.set(key, requirable(args.path, args.resolveDir));
      return requirableVerdicts.get(key) ? { path: args.path, external: true } : undefined;
    });
  },
};

/**
 * Whether Node's require() loads `spec` from `dir` as CommonJS: not an ES module, nor a file that a loader of ours
 * bundles as text (a package's .proto).
 */
function requirable(spec, dir) {
  let file;
  try {
    file = require.resolve(spec, { paths: [dir] });
  } catch {
    return false;
  }
  if (!path.isAbsolute(file)) return true; // a Node built-in
  const extension = path.extname(file);
  if (extension === '.cjs' || extension === '.json') return true;
  if (extension !== '.js') return false;
  // A file of ES module syntax in a CommonJS package, which only a bundler reads (jsonc-parser/lib/esm/main.js).
  if (/^\s*(import|export)\s/m.test(fs.readFileSync(file, 'utf8'))) return false;
  for (let d = path.dirname(file); d !== path.dirname(d); d = path.dirname(d)) {
    const pkg = path.join(d, 'package.json');
    if (fs.existsSync(pkg)) return JSON.parse(fs.readFileSync(pkg, 'utf8')).type !== 'module';
  }
  return true;
}

function listFiles(dir, suffix) {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(suffix))
    .map((f) => path.join(dir, f));
}

async function main() {
  copyProtos();
  const builds = [
    // The extension's entry: a small loader of dist/main.js (the wiring and what it imports), timing the load for the log.
    { ...nodeBase, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js' },
    { ...nodeBase, entryPoints: ['src/main.ts'], outfile: 'dist/main.js', plugins: shellPlugins },
    // The sandbox server, loaded by the extension only when the sandbox starts (src/vscode/sandbox/sandboxService.ts).
    { ...nodeBase, entryPoints: ['src/sandbox/sandboxServer.ts'], outfile: 'dist/sandbox.js' },
    // The results panels and their view models, loaded when the first panel opens (src/vscode/panel/resultsController.ts).
    {
      ...nodeBase,
      entryPoints: ['src/vscode/panel/resultsPanel.bundle.ts'],
      outfile: 'dist/resultsPanel.js',
      plugins: shellPlugins,
    },
    // The harvest engine with ajv and the MDS schemas, loaded when Fetch Hours first runs (src/vscode/harvest/fetchHours.ts).
    {
      ...nodeBase,
      entryPoints: ['src/vscode/harvest/harvest.bundle.ts'],
      outfile: 'dist/harvest.js',
      plugins: shellPlugins,
    },
    // The gRPC core with @grpc/grpc-js and protobufjs, loaded when a gRPC feature is first used (src/vscode/grpc/grpcService.ts).
    { ...nodeBase, entryPoints: ['src/vscode/grpc/grpc.bundle.ts'], outfile: 'dist/grpc.js', plugins: shellPlugins },
    // Copy as Code's program writers, loaded when Copy as Code first runs (src/vscode/codegen/codegenLoader.ts).
    {
      ...nodeBase,
      entryPoints: ['src/vscode/codegen/codegen.bundle.ts'],
      outfile: 'dist/codegen.js',
      plugins: shellPlugins,
    },
    // The analysis worker: a child process the extension forks on first use, the only one that loads DuckDB (src/vscode/analysis/analysisClient.ts).
    { ...nodeBase, entryPoints: ['src/vscode/analysis/analysisWorker.bundle.ts'], outfile: 'dist/analysisWorker.js' },
    // Analyze Harvest, Open as Notebook and the notebook's controller, loaded when one is first used (src/vscode/analysis/registerAnalysis.ts).
    {
      ...nodeBase,
      entryPoints: ['src/vscode/analysis/analysis.bundle.ts'],
      outfile: 'dist/analysis.js',
      plugins: shellPlugins,
    },
    // The contract runner of the Testing view (with ajv and the MDS schemas), loaded when a test first runs (src/vscode/contract/contractLoader.ts).
    {
      ...nodeBase,
      entryPoints: ['src/vscode/contract/contract.bundle.ts'],
      outfile: 'dist/contract.js',
      plugins: shellPlugins,
    },
    // The agent tools (language-model tools) and the core they run, loaded on a tool's first call (src/vscode/agent/registerAgentTools.ts).
    {
      ...nodeBase,
      entryPoints: ['src/vscode/agent/agentTools.bundle.ts'],
      outfile: 'dist/agentTools.js',
      plugins: shellPlugins,
    },
    ...lazyLibraryBuilds(),
    { ...nodeBase, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } },
    // The results panel's browser bundle (src/webview-ui, with @vscode-elements/elements and lit bundled in)
    // and its stylesheet, imported by main.ts: dist/webview/main.js and main.css, the only files the
    // webview may load (localResourceRoots).
    {
      bundle: true,
      platform: 'browser',
      format: 'iife',
      target: 'es2022',
      sourcemap: production ? false : 'linked',
      minify: production,
      logLevel: 'warning',
      entryPoints: ['src/webview-ui/main.ts'],
      outfile: 'dist/webview/main.js',
    },
    // The harvest notebook's renderer (package.json `notebookRenderer`): an ES module VS Code loads into a notebook's
    // output page, with the results panel's table (src/webview-ui/notebookRenderer.ts); its stylesheets as text.
    {
      bundle: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      sourcemap: production ? false : 'linked',
      minify: production,
      logLevel: 'warning',
      loader: { '.css': 'text' },
      entryPoints: ['src/webview-ui/notebookRenderer.ts'],
      outfile: 'dist/notebookRenderer.js',
    },
  ];
  if (args.has('--tests')) {
    const unit = listFiles('test/unit', '.test.ts');
    // One build per test file, so that a file with an error does not keep the others from building. The source maps
    // name the files of the tree (no copy of their text: a third of the size).
    for (const file of unit)
      builds.push({
        ...nodeBase,
        sourcemap: 'inline',
        sourcesContent: false,
        entryPoints: [file],
        outdir: 'out/test/unit',
        outbase: 'test/unit',
        external: ['vscode'],
        plugins: [requirablePackagesExternal],
      });
  }
  // The layers that run in a real VS Code (scripts/run-integration.mjs, scripts/run-e2e.mjs). Integration:
  // the extensionTestsPath entry (index.ts) and every *.test.ts, run inside the extension host. E2e: every
  // *.test.ts, run by mocha in plain Node, driving the workbench with playwright-core.
  if (args.has('--integration')) {
    // A stale bundle of a deleted test would otherwise still run.
    fs.rmSync('out/test/integration', { recursive: true, force: true });
    const entries = ['test/integration/index.ts', ...listFiles('test/integration', '.test.ts')];
    for (const file of entries)
      builds.push({
        ...nodeBase,
        sourcemap: 'inline',
        entryPoints: [file],
        outdir: 'out/test/integration',
        outbase: 'test/integration',
        external: ['vscode', '@duckdb/node-api', 'mocha'],
      });
  }
  if (args.has('--e2e')) {
    fs.rmSync('out/test/e2e', { recursive: true, force: true });
    for (const file of listFiles('test/e2e', '.test.ts'))
      builds.push({
        ...nodeBase,
        sourcemap: 'inline',
        entryPoints: [file],
        outdir: 'out/test/e2e',
        outbase: 'test/e2e',
        external: ['@duckdb/node-api', 'playwright-core', 'mocha'],
      });
  }
  if (args.has('--bench')) {
    const bench = listFiles('bench', '.ts');
    if (bench.length) builds.push({ ...nodeBase, entryPoints: bench, outdir: 'dist/bench', outbase: 'bench' });
  }
  const existing = builds.filter((b) => (b.entryPoints || []).every((e) => fs.existsSync(e)));
  if (watch) {
    for (const b of existing) await (await esbuild.context(b)).watch();
    return;
  }
  const results = await Promise.allSettled(existing.map((b) => esbuild.build(b)));
  if (fs.existsSync('dist/cli.js')) fs.chmodSync('dist/cli.js', 0o755);
  const failures = results.filter((r) => r.status === 'rejected');
  if (failures.length) throw new Error(`${failures.length} bundle(s) failed to build (see the errors above)`);
}

main().catch((err) => {
  console.error(err.message || err);
  process.exit(1);
});
