#!/usr/bin/env node
// `npm run lint`: ESLint over the tree (eslint.config.mjs), and the type errors of the TypeScript program it lints
// with (test/tsconfig.json: src, test and bench). Type-aware rules need that program checked anyway: building it once
// for both saves the second type check that `eslint .` beside `tsc -p test` cost (`npm test` runs `tsc -p .` and
// `tsc -p src/webview-ui` beside it for the other two projects' libraries). Exit 1 on a type error or a lint error.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TSCONFIG = path.join(ROOT, 'test', 'tsconfig.json');

function program() {
  const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => report([d]) };
  const config = ts.getParsedCommandLineOfConfigFile(TSCONFIG, {}, host);
  if (!config) process.exit(1);
  if (config.errors.length) report(config.errors);
  return ts.createProgram({ rootNames: config.fileNames, options: config.options });
}

function report(diagnostics) {
  const format = process.stdout.isTTY ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics;
  process.stdout.write(
    format(diagnostics, {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => ROOT,
      getNewLine: () => '\n',
    }),
  );
}

const tsProgram = program();
const typeErrors = ts.getPreEmitDiagnostics(tsProgram);
report(typeErrors);
if (typeErrors.length) console.log(`${typeErrors.length} type error(s) in ${path.relative(ROOT, TSCONFIG)}'s program`);

const eslint = new ESLint({
  cwd: ROOT,
  // The TypeScript files get the program above; eslint.config.mjs names the same tsconfig, so nothing else changes.
  overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parserOptions: { programs: [tsProgram] } } }],
});
const results = await eslint.lintFiles(['.']);
const output = (await eslint.loadFormatter('stylish')).format(results);
if (output) process.stdout.write(output);
const lintErrors = results.reduce((n, r) => n + r.errorCount, 0);
process.exitCode = typeErrors.length || lintErrors ? 1 : 0;
