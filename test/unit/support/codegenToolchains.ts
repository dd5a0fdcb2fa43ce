import assert from 'node:assert/strict';
// How the codegen run tests build and run a generated program in each language, and which tools
// each needs. The toolchains come from Debian packages (.ci/run installs them) and npm.
import { spawn, spawnSync } from 'node:child_process';
import type { SpawnOptions } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CodeLanguage } from '../../../src/core/codegen';
import { CODE_LANGUAGE_INFO } from '../../../src/core/codegen';

const ROOT = resolve(__dirname, '../../..');
/** Debian's Python: `python3` on PATH may be another (pyenv) without python3-jwt and python3-requests. */
const PYTHON = '/usr/bin/python3';
const GOCODE = '/usr/share/gocode/src/github.com';
/** Debian's Gson (libgoogle-gson-java), the JSON parser of the Java program. */
export const GSON = '/usr/share/java/gson.jar';

function has(command: string, args: string[] = ['--version']): boolean {
  const run = spawnSync(command, args, { stdio: 'ignore', env: { ...process.env, ...JVM_ENV } });
  return run.error === undefined && run.status === 0;
}

/**
 * The JVM's options for the Java programs' compiles and runs: C1 only and the serial collector, for programs that live
 * a few seconds on two busy cores (half the processor time of the default tiers and G1: javac 2.8 -> 1.4 s, a
 * source-file run 4.4 -> 2.3 s). What a program does is the same. The JVM says so on stderr, which runProgram drops.
 */
export const JVM_ENV = { JAVA_TOOL_OPTIONS: '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData' };
const JVM_NOTICE = /^Picked up JAVA_TOOL_OPTIONS: .*\n/gm;

const missing = new Map<CodeLanguage, string[]>();
/** The tools `language` needs that this machine lacks (Debian package names), empty when it can run; asked once a run. */
export function missingTools(language: CodeLanguage): string[] {
  let found = missing.get(language);
  if (!found) missing.set(language, (found = lookForTools(language)));
  return found;
}

function lookForTools(language: CodeLanguage): string[] {
  switch (language) {
    case 'python':
      return has(PYTHON, ['-c', 'import jwt, requests, cryptography'])
        ? []
        : [`${PYTHON} with python3-jwt python3-requests python3-cryptography`];
    case 'typescript':
      return existsSync(join(ROOT, 'node_modules/typescript/bin/tsc')) && existsSync(join(ROOT, 'node_modules/jose'))
        ? []
        : ['typescript and jose in node_modules (npm ci)'];
    case 'go':
      return [
        ...(has('go', ['version']) ? [] : ['go (golang-go)']),
        ...(existsSync(join(GOCODE, 'golang-jwt/jwt/go.mod')) ? [] : ['golang-github-golang-jwt-jwt-dev']),
        ...(existsSync(join(GOCODE, 'google/uuid/go.mod')) ? [] : ['golang-github-google-uuid-dev']),
      ];
    case 'java':
      return [
        ...(has('javac', ['-version']) ? [] : ['javac (default-jdk-headless)']),
        ...(existsSync(GSON) ? [] : ['libgoogle-gson-java']),
      ];
    case 'shell':
      return [
        ['bash', '--version', 'bash'],
        ['openssl', 'version', 'openssl'],
        ['curl', '--version', 'curl'],
        ['jq', '--version', 'jq'],
        ['basenc', '--version', 'basenc (coreutils)'],
      ]
        .filter(([command, flag]) => !has(command, [flag]))
        .map(([, , name]) => name);
  }
}

/** A program ready to run: the command and its arguments, in its own folder. */
export interface BuiltProgram {
  command: string;
  args: string[];
  cwd: string;
}

/** Writes `source` into a new folder under `parent` and builds it (Go, TypeScript); throws with the compiler's output. */
export function buildProgram(language: CodeLanguage, source: string, parent: string, name: string): BuiltProgram {
  const dir = join(parent, `${language}-${name}`);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, CODE_LANGUAGE_INFO[language].fileName);
  writeFileSync(file, source);
  const compile = (command: string, args: string[], env: NodeJS.ProcessEnv = process.env) => {
    const run = spawnSync(command, args, { cwd: dir, env: { ...env, ...JVM_ENV }, encoding: 'utf8' });
    if (run.status !== 0)
      throw new Error(`${command} ${args.join(' ')} failed:\n${run.stdout}${run.stderr}${run.error?.message ?? ''}`);
  };
  switch (language) {
    case 'python':
      return { command: PYTHON, args: [file], cwd: dir };
    case 'shell':
      return { command: 'bash', args: [file], cwd: dir };
    case 'java':
      return { command: 'java', args: ['-cp', GSON, file], cwd: dir };
    case 'typescript': {
      writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
      symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
      // Compiled by compileTypeScript, all programs of a run with one tsc.
      return { command: process.execPath, args: [file.replace(/\.ts$/, '.js')], cwd: dir };
    }
    case 'go': {
      // Offline, from Debian's golang-*-dev sources: the go.mod the program's header gives for that, as a user copies it.
      writeFileSync(join(dir, 'go.mod'), goModOf(source));
      compile('go', ['build', '-o', 'program', '.'], { ...process.env, ...GO_ENV });
      return { command: join(dir, 'program'), args: [], cwd: dir };
    }
  }
}

/** The go.mod in a Go program's header: the indented comment lines from `module` to the last `replace`, unindented. */
export function goModOf(source: string): string {
  const lines = source.split('\n');
  const first = lines.indexOf('//\tmodule example');
  if (first < 0) throw new Error("the Go program's header gives no go.mod");
  let last = first;
  for (let i = first; i < lines.length && /^\/\/(\t.*)?$/.test(lines[i]); i++)
    if (lines[i].startsWith('//\treplace ')) last = i;
  return `${lines
    .slice(first, last + 1)
    .map((l) => l.replace(/^\/\/\t?/, ''))
    .join('\n')}\n`;
}

/** The JavaScript tsc made of each TypeScript source this run, by source text. */
const compiledTypeScript = new Map<string, string>();

/**
 * Compiles the TypeScript programs with one run of tsc (strict, as ES modules for Node); throws with its output. A
 * program whose source tsc already compiled in this run (several tests build the same one) gets that output.
 */
export function compileTypeScript(programs: BuiltProgram[]): void {
  const pending = new Map<string, string[]>();
  for (const program of programs) {
    const output = program.args[0];
    const source = readFileSync(output.replace(/\.js$/, '.ts'), 'utf8');
    const compiled = compiledTypeScript.get(source);
    if (compiled !== undefined) writeFileSync(output, compiled);
    else pending.set(source, [...(pending.get(source) ?? []), output]);
  }
  if (pending.size === 0) return;
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  const files = [...pending.values()].flat().map((output) => output.replace(/\.js$/, '.ts'));
  const run = spawnSync(
    process.execPath,
    [
      tsc,
      '--strict',
      '--target',
      'es2022',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--types',
      'node',
      '--skipLibCheck',
      ...files,
    ],
    { encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(`tsc failed:\n${run.stdout}${run.stderr}`);
  for (const [source, [output]] of pending) compiledTypeScript.set(source, readFileSync(output, 'utf8'));
}

/** Go offline: no proxy, no checksum database, a build cache shared by the runs of one machine. */
export const GO_ENV = {
  GOFLAGS: '-mod=mod',
  GOPROXY: 'off',
  GONOSUMDB: '*',
  GOPATH: join(tmpdir(), 'mobility-api-codegen-gopath'),
  GOCACHE: join(tmpdir(), 'mobility-api-codegen-gocache'),
};

/** What a program run printed and how it ended. */
export interface ProgramRun {
  code: number | null;
  out: string;
  err: string;
}

/** Runs a built program with `env` added to this process's environment (and JVM_ENV, whose notice it drops). */
export async function runProgram(program: BuiltProgram, env: Record<string, string>): Promise<ProgramRun> {
  const run = await runCommand(program.command, program.args, {
    cwd: program.cwd,
    env: { ...process.env, ...JVM_ENV, ...env },
  });
  return { ...run, err: run.err.replace(JVM_NOTICE, '') };
}

/** Runs a command to its end, collecting its exit code and output. */
export function runCommand(command: string, args: readonly string[], options: SpawnOptions): Promise<ProgramRun> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, out, err }));
  });
}

/** Debian's Python with grpcio, protobuf and protoc with its Python plugin. */
export function missingGrpcPython(): string[] {
  const has = (command: string, args: string[]) => spawnSync(command, args, { stdio: 'ignore' }).status === 0;
  return [
    ...(has('/usr/bin/python3', ['-c', 'import grpc, google.protobuf']) ? [] : ['python3-grpcio python3-protobuf']),
    ...(has('protoc', ['--version']) ? [] : ['protobuf-compiler']),
    ...(has('test', ['-x', '/usr/bin/grpc_python_plugin']) ? [] : ['protobuf-compiler-grpc']),
  ];
}

/** Skips a test whose toolchain is not installed (naming what is missing), and fails it under CI=true instead. */
export function skipIfMissing(context: Mocha.Context, language: string, missing: readonly string[]): void {
  if (missing.length === 0) return;
  if (process.env.CI === 'true') assert.fail(`${language}: missing ${missing.join(', ')} (.ci/run installs them)`);
  if (context.test) context.test.title += ` (pending: ${missing.join(', ')} not installed)`;
  context.skip();
}
