// What `node esbuild.js` puts into each bundle (issue 22): activation loads dist/extension.js and dist/main.js, and
// neither may carry @grpc/grpc-js, protobufjs or @grpc/proto-loader; the gRPC client lives in dist/grpc.js, which
// the shell loads the first time a gRPC feature is used (src/vscode/grpc/grpcService.ts). Built in a temporary folder
// (its `src` links to the repository's, as bench/bundles.ts builds; `proto` is a copy), so that dist/ is left alone.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type * as Esbuild from 'esbuild';

const ROOT = path.resolve('.');
const GRPC_PACKAGES = ['@grpc/grpc-js', 'protobufjs', '@grpc/proto-loader'];
/** Bytes of dist/main.js (minified) that src/vscode/analysis may take: its commands and the notebook's serializer. */
const ANALYSIS_WIRING_BUDGET = 700;
/** What activation loads, dist/extension.js + dist/main.js as shipped (minified): docs/benchmarks.md's budget. */
const ACTIVATION_BUDGET_BYTES = 300 * 1024;
/** The libraries src/ requires where first used, each a bundle of its own beside the extension host's (esbuild.js). */
const LAZY_LIBRARIES = { 'csv-parse': 'csv-parse.js', 'jsonc-parser': 'jsonc-parser.js' };

/** The package folders under node_modules whose files went into a bundle, from its source map (the inputs esbuild bundled). */
function packagesIn(bundle: string): Set<string> {
  const map = JSON.parse(fs.readFileSync(`${bundle}.map`, 'utf8')) as { sources: string[] };
  const found = new Set<string>();
  for (const source of map.sources) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source.replace(/\\/g, '/'));
    if (m) found.add(m[1]);
  }
  return found;
}

/** The repository files of a bundle, relative to the repository (`src/vscode/grpc/grpcService.ts`). */
function ownFilesIn(bundle: string): string[] {
  const map = JSON.parse(fs.readFileSync(`${bundle}.map`, 'utf8')) as { sources: string[] };
  const root = fs.realpathSync(ROOT);
  return map.sources
    .filter((s) => !s.includes('node_modules'))
    .map((s) => path.relative(root, path.resolve(path.dirname(bundle), s)).replace(/\\/g, '/'));
}

describe('bundles: what activation loads, and what loads later (issues 22, 24)', function () {
  // A full build of every bundle on a shared 2-core machine.
  this.timeout(180_000);
  let dir: string;
  let dist: string;
  /** `node esbuild.js --production` (minified, as `npm run package` ships it) in a folder of its own. */
  let production: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bundles-test-'));
    fs.symlinkSync(path.join(ROOT, 'src'), path.join(dir, 'src'), 'dir');
    // Copied, not linked: esbuild.js copies proto/ to dist/proto and adds files there, which would land in ours.
    fs.cpSync(path.join(ROOT, 'proto'), path.join(dir, 'proto'), { recursive: true });
    const result = spawnSync(process.execPath, [path.join(ROOT, 'esbuild.js')], { cwd: dir, encoding: 'utf8' });
    assert.equal(result.status, 0, `node esbuild.js failed:\n${result.stderr}${result.stdout}`);
    dist = path.join(dir, 'dist');
    production = path.join(dir, 'production');
    fs.mkdirSync(production);
    fs.symlinkSync(path.join(ROOT, 'src'), path.join(production, 'src'), 'dir');
    fs.cpSync(path.join(ROOT, 'proto'), path.join(production, 'proto'), { recursive: true });
    const minified = spawnSync(process.execPath, [path.join(ROOT, 'esbuild.js'), '--production'], {
      cwd: production,
      encoding: 'utf8',
    });
    assert.equal(minified.status, 0, `node esbuild.js --production failed:\n${minified.stderr}${minified.stdout}`);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('what activation loads (dist/extension.js + dist/main.js, minified) is at most 300 KB (issue 37)', () => {
    const files = ['extension.js', 'main.js'].map((f) => path.join(production, 'dist', f));
    const bytes = files.reduce((n, f) => n + fs.statSync(f).size, 0);
    assert.ok(
      bytes <= ACTIVATION_BUDGET_BYTES,
      `dist/extension.js + dist/main.js are ${(bytes / 1024).toFixed(1)} KB minified, over the budget of ${ACTIVATION_BUDGET_BYTES / 1024} KB: load a feature on first use from a bundle of its own (as dist/analysis.js, dist/contract.js, dist/codegen.js are loaded)`,
    );
  });

  it('csv-parse and jsonc-parser are bundles of their own, required from dist/ where first used, not part of what activation loads', () => {
    const main = fs.readFileSync(path.join(dist, 'main.js'), 'utf8');
    for (const [name, file] of Object.entries(LAZY_LIBRARIES)) {
      assert.ok(
        !packagesIn(path.join(dist, 'main.js')).has(name),
        `dist/main.js bundles ${name}: require it where first used (src/core/http/csvBody.ts, src/core/auth/tokenJson.ts), and list it in esbuild.js's LAZY_LIBRARIES`,
      );
      assert.ok(main.includes(`require("./${file}")`), `dist/main.js requires ./${file} at run time`);
      assert.ok(packagesIn(path.join(dist, file)).has(name), `dist/${file} bundles ${name}`);
    }
    // They load from the folder of the bundles that require them, as the extension host loads them.
    const requireFromDist = createRequire(path.join(dist, 'main.js'));
    const csv = requireFromDist('./csv-parse.js') as { parse(text: string): string[][] };
    assert.deepEqual(csv.parse('a,b\n"1,5",2\n'), [
      ['a', 'b'],
      ['1,5', '2'],
    ]);
    const jsonc = requireFromDist('./jsonc-parser.js') as { parse(text: string): unknown };
    assert.deepEqual(jsonc.parse('{ "a": 1, /* a comment */ }'), { a: 1 });
    // The CLI ships alone (its npm package holds dist/cli.js and no other bundle): it carries them.
    for (const name of Object.keys(LAZY_LIBRARIES))
      assert.ok(packagesIn(path.join(dist, 'cli.js')).has(name), `dist/cli.js bundles ${name}`);
  });

  it('builds dist/extension.js, dist/main.js and dist/grpc.js', () => {
    for (const file of ['extension.js', 'main.js', 'grpc.js'])
      assert.ok(fs.existsSync(path.join(dist, file)), `dist/${file} is built`);
    assert.ok(
      fs.existsSync(path.join(dist, 'proto', 'mobility', 'sandbox', 'v1', 'vehicles.proto')),
      'the .proto files are copied to dist/proto',
    );
  });

  it('what activation loads (dist/extension.js, dist/main.js) holds no gRPC library, though main.js has the gRPC service that loads them', () => {
    for (const file of ['extension.js', 'main.js']) {
      const packages = packagesIn(path.join(dist, file));
      for (const name of GRPC_PACKAGES)
        assert.ok(
          !packages.has(name),
          `dist/${file} bundles ${name}: a static import of the gRPC core reached the activation path (load it through src/vscode/grpc/grpcService.ts)`,
        );
    }
    // Not vacuous: the wiring is there and loads the gRPC bundle at run time.
    assert.ok(
      ownFilesIn(path.join(dist, 'main.js')).includes('src/vscode/grpc/grpcService.ts'),
      'dist/main.js has the gRPC service',
    );
    assert.ok(packagesIn(path.join(dist, 'main.js')).has('jose'), 'the source map lists the packages a bundle holds');
  });

  it('the other bundles the extension loads later hold none either; dist/grpc.js holds them all', () => {
    for (const file of ['resultsPanel.js', 'harvest.js', 'codegen.js', path.join('webview', 'main.js')]) {
      const packages = packagesIn(path.join(dist, file));
      for (const name of GRPC_PACKAGES) assert.ok(!packages.has(name), `dist/${file} bundles ${name}`);
    }
    const grpc = packagesIn(path.join(dist, 'grpc.js'));
    for (const name of ['@grpc/grpc-js', 'protobufjs']) assert.ok(grpc.has(name), `dist/grpc.js bundles ${name}`);
    assert.ok(
      ownFilesIn(path.join(dist, 'grpc.js')).includes('src/core/grpc/call.ts'),
      'dist/grpc.js has the gRPC core',
    );
  });

  it("the agent tools are dist/agentTools.js, loaded on a tool's first call: activation holds their names and the MCP server's launch only, and no bundle of the extension holds the MCP SDK", () => {
    // Activation may hold the tools' names (to register them) and how VS Code starts `mobility-api mcp` (a path and a command line).
    const atActivation = new Set(['src/agent/agentToolNames.ts', 'src/agent/mcpLaunch.ts']);
    const agent = (file: string) =>
      ownFilesIn(path.join(dist, file)).filter((f) => f.startsWith('src/agent/') && !atActivation.has(f));
    for (const file of ['extension.js', 'main.js'])
      assert.deepEqual(
        agent(file),
        [],
        `dist/${file} holds the agent tools: load them through src/vscode/agent/registerAgentTools.ts`,
      );
    assert.ok(
      agent('agentTools.js').includes('src/agent/scrubAnswer.ts'),
      'dist/agentTools.js has the tools and the scrubber',
    );
    for (const file of ['main.js', 'agentTools.js'])
      assert.ok(
        !packagesIn(path.join(dist, file)).has('@modelcontextprotocol/sdk'),
        `dist/${file} bundles the MCP SDK`,
      );
    assert.ok(
      packagesIn(path.join(dist, 'cli.js')).has('@modelcontextprotocol/sdk'),
      'dist/cli.js has the MCP SDK for `mobility-api mcp`',
    );
  });

  it("Copy as Code's program writers are dist/codegen.js, loaded on first use, not part of what activation loads", () => {
    const codegen = (file: string) =>
      ownFilesIn(path.join(dist, file)).filter((f) => f.startsWith('src/core/codegen/'));
    for (const file of ['extension.js', 'main.js'])
      assert.deepEqual(
        codegen(file),
        [],
        `dist/${file} holds the code writers: import them through src/vscode/codegen/codegenLoader.ts`,
      );
    assert.ok(codegen('codegen.js').includes('src/core/codegen/pythonProgram.ts'), 'dist/codegen.js has the writers');
    assert.ok(
      ownFilesIn(path.join(dist, 'main.js')).includes('src/vscode/codegen/copyAsCode.ts'),
      'dist/main.js has the command that loads them',
    );
  });

  it('the analysis (issue 31): DuckDB in no bundle; activation holds only its wiring; the engine is the worker, a bundle of its own', () => {
    for (const file of [
      'extension.js',
      'main.js',
      'resultsPanel.js',
      'harvest.js',
      'analysis.js',
      'analysisWorker.js',
      'cli.js',
    ]) {
      const packages = [...packagesIn(path.join(dist, file))].filter((p) => p.startsWith('@duckdb/'));
      assert.deepEqual(packages, [], `dist/${file} bundles ${packages.join(', ')}: the native module stays external`);
    }
    for (const file of ['extension.js', 'main.js']) {
      const own = ownFilesIn(path.join(dist, file));
      assert.deepEqual(
        own.filter(
          (f) =>
            f.startsWith('src/core/analysis/') ||
            f === 'src/vscode/analysis/analysis.bundle.ts' ||
            f === 'src/vscode/analysis/analysisClient.ts' ||
            f === 'src/vscode/analysis/harvestNotebook.ts',
        ),
        [],
        `dist/${file} holds the analysis: load it through src/vscode/analysis/registerAnalysis.ts`,
      );
    }
    assert.ok(
      ownFilesIn(path.join(dist, 'main.js')).includes('src/vscode/analysis/registerAnalysis.ts'),
      'dist/main.js has the wiring that loads it',
    );
    assert.ok(
      ownFilesIn(path.join(dist, 'analysis.js')).includes('src/vscode/analysis/analysisClient.ts'),
      'dist/analysis.js has the worker client',
    );
    const worker = ownFilesIn(path.join(dist, 'analysisWorker.js'));
    assert.ok(worker.includes('src/core/analysis/analysisEngine.ts'), 'dist/analysisWorker.js has the engine');
    assert.ok(
      !ownFilesIn(path.join(dist, 'analysis.js')).includes('src/core/analysis/analysisEngine.ts'),
      "the extension host's bundle does not load the engine",
    );
    assert.match(
      fs.readFileSync(path.join(dist, 'analysisWorker.js'), 'utf8'),
      /require\("@duckdb\/node-api"\)|import\("@duckdb\/node-api"\)/,
      'the worker loads DuckDB from node_modules',
    );
  });

  it("the analysis adds little to what activation loads (issue 31): the commands and the notebook's serializer; the controller, renderer messaging and context key load later", async () => {
    // Minified as shipped, measured by esbuild's metafile (what each input put into the bundle).
    const { build } = createRequire(__filename)('esbuild') as typeof Esbuild;
    const result = await build({
      bundle: true,
      minify: true,
      write: false,
      metafile: true,
      logLevel: 'silent',
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      external: ['vscode', '@duckdb/node-api'],
      loader: { '.proto': 'text' },
      absWorkingDir: ROOT,
      entryPoints: ['src/main.ts'],
      outfile: 'dist/main.js',
    });
    const output = Object.values(result.metafile.outputs).find((o) => o.entryPoint);
    assert.ok(output);
    const analysis = Object.entries(output.inputs).filter(([input]) => input.startsWith('src/vscode/analysis/'));
    assert.deepEqual(
      analysis.map(([input]) => input),
      ['src/vscode/analysis/registerAnalysis.ts'],
      'only the wiring of the analysis is loaded at activation',
    );
    const bytes = analysis.reduce((n, [, input]) => n + input.bytesInOutput, 0);
    // The budget: the wiring was 1,540 bytes minified when the notebook's controller and the harvest folders' watcher
    // were part of it; they now load with dist/analysis.js. A new analysis feature goes there too, not here.
    assert.ok(
      bytes <= ANALYSIS_WIRING_BUDGET,
      `the analysis wiring is ${bytes} bytes of dist/main.js (minified), over its budget of ${ANALYSIS_WIRING_BUDGET}: load it from dist/analysis.js (src/vscode/analysis/analysis.bundle.ts)`,
    );
    const lazy = ownFilesIn(path.join(dist, 'analysis.js'));
    assert.ok(
      lazy.includes('src/vscode/analysis/analysis.bundle.ts'),
      'dist/analysis.js has the controller and the context key',
    );
  });

  it("the harvest notebook's renderer is a browser bundle of its own with the results table, and no Node", () => {
    const renderer = path.join(dist, 'notebookRenderer.js');
    assert.ok(
      fs.existsSync(renderer),
      "dist/notebookRenderer.js is built (package.json's notebookRenderer entrypoint)",
    );
    const own = ownFilesIn(renderer);
    for (const file of [
      'src/webview-ui/notebookRenderer.ts',
      'src/webview-ui/grid/dataGrid.ts',
      'src/webview-ui/grid/gridColumns.ts',
      'src/shared/sqlAnswer.ts',
    ])
      assert.ok(own.includes(file), `dist/notebookRenderer.js has ${file}`);
    assert.deepEqual(
      own.filter((f) => !f.startsWith('src/webview-ui/') && !f.startsWith('src/shared/')),
      [],
      'it imports src/shared and src/webview-ui only',
    );
    assert.match(
      fs.readFileSync(renderer, 'utf8'),
      /export\s*\{[^}]*\bactivate\b/,
      'an ES module exporting activate, as VS Code loads a renderer',
    );
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      contributes: { notebookRenderer: { entrypoint: string }[] };
    };
    assert.deepEqual(
      manifest.contributes.notebookRenderer.map((r) => r.entrypoint),
      ['./dist/notebookRenderer.js'],
    );
  });

  it("the Testing view's runner (core/contract's runs, the conformance check and ajv) is dist/contract.js, loaded on the first run", () => {
    const heavy = (file: string) =>
      ownFilesIn(path.join(dist, file)).filter(
        (f) => f === 'src/core/contract/contractRun.ts' || f.startsWith('src/core/conformance/'),
      );
    for (const file of ['extension.js', 'main.js'])
      assert.deepEqual(
        heavy(file),
        [],
        `dist/${file} holds the contract runner: load it through src/vscode/contract/contractLoader.ts`,
      );
    assert.ok(heavy('contract.js').includes('src/core/contract/contractRun.ts'), 'dist/contract.js has the runner');
    assert.ok(
      ownFilesIn(path.join(dist, 'main.js')).includes('src/vscode/contract/contractTests.ts'),
      'dist/main.js has the controller that loads it',
    );
  });

  it("what activation loads copies neither VS Code's API nor @vscode/l10n into namespaces of its own: both are shared", () => {
    const main = fs.readFileSync(path.join(dist, 'main.js'), 'utf8');
    // esbuild's helpers that copy a module's every member: __reExport (export *) and __toESM (a default or namespace import of CommonJS).
    const copies = [...main.matchAll(/__(?:reExport|toESM)\((?:require\("([^"]+)"\)|(require_\w+)\(\))/g)].map(
      (m) => m[1] ?? m[2],
    );
    assert.ok(!copies.includes('vscode'), `dist/main.js copies VS Code's API member by member (${copies.join(', ')})`);
    // @vscode/l10n is bundled (require_main), as are a few others; node:path and friends are copied, a few members each.
    const l10nCopies = copies.filter((c) => c === 'require_main').length;
    assert.equal(
      l10nCopies,
      0,
      `dist/main.js copies a bundled CommonJS "main" module ${l10nCopies} times (@vscode/l10n, imported by ~80 files, is one)`,
    );
    // VS Code's API is required once, and what the shell names of it is there: a member src/ uses but the shared module lacks would be undefined.
    assert.equal(main.match(/require\("vscode"\)/g)?.length, 1, 'one require("vscode")');
    for (const member of [
      'window',
      'commands',
      'workspace',
      'l10n',
      'Uri',
      'TreeItem',
      'EventEmitter',
      'TabInputWebview',
    ]) {
      assert.match(main, new RegExp(`\\b${member} = m\\d*\\.${member};`), `the shared vscode module exports ${member}`);
    }
  });
});
