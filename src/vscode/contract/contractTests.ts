// VS Code's Testing view over the request files: every request with assertions (`?? status == 200`) of the
// workspace's `.http`/`.rest` files is a test, grouped by file, found when a file opens or changes (and by a scan of
// the workspace when the Testing view first asks). A run goes through core/contract's runner, the one behind
// `mobility-api test` (dist/contract.js, loaded on the first run), with a fresh token per request; a failed
// assertion is reported at its line with the expected and actual value. One run profile per environment; the active
// environment's is the default. Every answer a run gets joins its environment's results panel history (as a send
// from the CodeLens does), and the test links to it: Open Result in the test's and its messages' context menus and
// over a failure's peek (`mobilityApi.openTestResult`), and a command link in a failure's Markdown message, trusted
// for that one command.
import path from 'node:path';
import * as vscode from 'vscode';
import { MobilityError, errorMessage } from '../../core/base';
import { parseRequestFile } from '../../core/http';
import type { CommandDeps } from '../platform/commandDeps';
import { COMMANDS } from '../platform/commandIds';
import { registerCommand } from '../platform/registerCommand';
import { resolveCredential } from '../environments/pickers';
import { loadContractEngine } from './contractLoader';
import { report, verdicts } from './testReport';
import type { ContractTestOutcome, TestResultLink } from './testReport';

export type { ContractTestOutcome, TestResultLink } from './testReport';

const FILE_PATTERN = '**/*.{http,rest}';
const EXCLUDE = '**/node_modules/**';

function isRequestFile(uri: vscode.Uri): boolean {
  return /\.(http|rest)$/i.test(uri.path);
}

/** What the integration tests reach: the tests found, a run of a file's tests on an environment, the last outcomes. */
export interface ContractTestsHandle {
  disposable: vscode.Disposable;
  items(): { id: string; label: string; children: { id: string; label: string; line: number }[] }[];
  runFile(uri: vscode.Uri, environmentId?: string): Promise<void>;
  outcomes(): Map<string, ContractTestOutcome>;
  /** The ids and titles of `environmentId`'s results panel history, newest first. */
  panelHistory(environmentId: string): { id: string; title: string }[];
}

/** The test controller, its discovery and its run profiles. */
export function registerContractTests(deps: CommandDeps): ContractTestsHandle {
  const controller = vscode.tests.createTestController(
    'mobilityApi.contractTests',
    vscode.l10n.t('Mobility API assertions'),
  );
  const disposables: vscode.Disposable[] = [controller];

  /** The file's tests from its text: one per request with assertions; the file's item goes when none is left. */
  const update = (uri: vscode.Uri, text: string) => {
    const file = parseRequestFile(text);
    // A request whose block holds a test this runner does not run (a script block, `@loop`; a global `??`: every request) is a test too: it errs.
    const global = file.refused.length > file.requests.reduce((n, r) => n + (r.refused?.length ?? 0), 0);
    const requests = file.notText
      ? []
      : file.requests.filter((r) => global || r.assertions?.length || r.refused?.length);
    const id = uri.toString();
    if (requests.length === 0) {
      controller.items.delete(id);
      return;
    }
    let fileItem = controller.items.get(id);
    if (!fileItem) {
      fileItem = controller.createTestItem(id, vscode.workspace.asRelativePath(uri, false), uri);
      controller.items.add(fileItem);
    }
    const parent = fileItem;
    parent.children.replace(
      requests.map((r) => {
        const label = r.name ?? `${r.method} ${r.grpc ? r.grpc.target + '/' + r.grpc.method : r.url}`;
        const item = controller.createTestItem(`${id}#${r.line}`, label, uri);
        item.range = new vscode.Range(r.line, 0, r.line, 0);
        item.description = vscode.l10n.t('line {0}', r.line + 1);
        return item;
      }),
    );
  };
  const fromDocument = (document: vscode.TextDocument) => {
    if (document.uri.scheme !== 'file' && document.uri.scheme !== 'untitled') return;
    if (document.languageId !== 'http' && !isRequestFile(document.uri)) return;
    update(document.uri, document.getText());
  };
  const fromDisk = async (uri: vscode.Uri) => {
    if (vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString())) return;
    try {
      update(uri, new TextDecoder().decode(await vscode.workspace.fs.readFile(uri)));
    } catch (err) {
      deps.log.warn('tests', `${uri.fsPath}: ${errorMessage(err)}`);
    }
  };

  let scanned = false;
  controller.resolveHandler = async (item) => {
    if (item || scanned) return;
    scanned = true;
    const files = await vscode.workspace.findFiles(FILE_PATTERN, EXCLUDE);
    await Promise.all(files.map(fromDisk));
    const watcher = vscode.workspace.createFileSystemWatcher(FILE_PATTERN);
    disposables.push(
      watcher,
      watcher.onDidCreate(fromDisk),
      watcher.onDidChange(fromDisk),
      watcher.onDidDelete((uri) => controller.items.delete(uri.toString())),
    );
  };
  controller.refreshHandler = async () => {
    scanned = false;
    await controller.resolveHandler?.(undefined);
  };

  vscode.workspace.textDocuments.forEach(fromDocument);
  disposables.push(
    vscode.workspace.onDidOpenTextDocument(fromDocument),
    vscode.workspace.onDidChangeTextDocument((e) => fromDocument(e.document)),
  );

  // One profile per environment, the active one's the default; made again when the environments change.
  let profiles: vscode.TestRunProfile[] = [];
  const makeProfiles = () => {
    for (const p of profiles) p.dispose();
    const active = deps.environments.activeId;
    profiles = deps.environments
      .all()
      .map((env) =>
        controller.createRunProfile(
          vscode.l10n.t('Run on {0}', env.name),
          vscode.TestRunProfileKind.Run,
          (request, token) => runTests(deps, controller, env.id, request, token, outcomes, results),
          env.id === active,
        ),
      );
  };
  makeProfiles();
  disposables.push(deps.environments.onDidChange(makeProfiles), {
    dispose: () => profiles.forEach((p) => p.dispose()),
  });
  const outcomes = new Map<string, ContractTestOutcome>();
  /** Each test's last answer in the results panel, by test id. */
  const results = new Map<string, TestResultLink>();
  disposables.push(
    registerCommand(deps, COMMANDS.openTestResult, (arg?: unknown) => {
      const link = linkOf(arg, results);
      if (!link)
        throw new MobilityError(
          'USAGE',
          vscode.l10n.t('This test has no answer in the results panel yet: run it, then open its result.'),
        );
      const shown = deps.results.showKept(link.environmentId, link.resultId);
      if (!shown.ok) throw new MobilityError('USAGE', shown.message);
      return Promise.resolve({ ok: true as const, ...link, title: shown.title });
    }),
  );
  return {
    disposable: vscode.Disposable.from(...disposables),
    items: () => {
      const list: ReturnType<ContractTestsHandle['items']> = [];
      controller.items.forEach((f) => {
        const children: { id: string; label: string; line: number }[] = [];
        f.children.forEach((t) => children.push({ id: t.id, label: t.label, line: t.range?.start.line ?? -1 }));
        list.push({ id: f.id, label: f.label, children: children.sort((a, b) => a.line - b.line) });
      });
      return list;
    },
    runFile: async (uri, environmentId = deps.environments.activeId) => {
      const item = controller.items.get(uri.toString());
      if (!item || !environmentId) throw new Error(`no tests of ${uri.toString()} or no environment`);
      const source = new vscode.CancellationTokenSource();
      try {
        await runTests(
          deps,
          controller,
          environmentId,
          new vscode.TestRunRequest([item]),
          source.token,
          outcomes,
          results,
        );
      } finally {
        source.dispose();
      }
    },
    outcomes: () => outcomes,
    panelHistory: (environmentId) => deps.results.historyOf(environmentId).map((e) => ({ id: e.id, title: e.title })),
  };
}

/**
 * The result a call of Open Result names: `{ environmentId, resultId }` (a message's command link), a test message's
 * menu argument `{ test, message }`, or a test item (the test's context menu).
 */
function linkOf(arg: unknown, results: ReadonlyMap<string, TestResultLink>): TestResultLink | undefined {
  if (typeof arg !== 'object' || arg === null) return undefined;
  const a = arg as Record<string, unknown>;
  if (typeof a.environmentId === 'string' && typeof a.resultId === 'string')
    return { environmentId: a.environmentId, resultId: a.resultId };
  const test = typeof a.test === 'object' && a.test !== null ? (a.test as Record<string, unknown>) : a;
  return typeof test.id === 'string' ? results.get(test.id) : undefined;
}

/** The tests a run asks for, by file: `include` (a file's item stands for its tests), or every test; less `exclude`. */
function testsByFile(
  controller: vscode.TestController,
  request: vscode.TestRunRequest,
): Map<vscode.TestItem, vscode.TestItem[]> {
  const excluded = new Set((request.exclude ?? []).map((t) => t.id));
  const byFile = new Map<vscode.TestItem, vscode.TestItem[]>();
  const add = (test: vscode.TestItem) => {
    if (excluded.has(test.id)) return;
    if (!test.parent) {
      test.children.forEach(add);
      return;
    }
    const list = byFile.get(test.parent) ?? [];
    if (!list.includes(test)) list.push(test);
    byFile.set(test.parent, list);
  };
  if (request.include) request.include.forEach(add);
  else controller.items.forEach(add);
  return byFile;
}

async function textOf(uri: vscode.Uri): Promise<string> {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  return open ? open.getText() : new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
}

async function runTests(
  deps: CommandDeps,
  controller: vscode.TestController,
  environmentId: string,
  request: vscode.TestRunRequest,
  token: vscode.CancellationToken,
  outcomes: Map<string, ContractTestOutcome>,
  results: Map<string, TestResultLink>,
): Promise<void> {
  const run = controller.createTestRun(request);
  const verdict = verdicts(run, outcomes, results);
  const byFile = testsByFile(controller, request);
  const pending = new Set([...byFile.values()].flat());
  pending.forEach((t) => run.enqueued(t));
  const abort = new AbortController();
  const cancel = token.onCancellationRequested(() => abort.abort());
  try {
    const environment = deps.environments.all().find((e) => e.id === environmentId);
    if (!environment)
      throw new Error(vscode.l10n.t('The environment of this run profile is gone: pick another profile.'));
    const { credential } = await resolveCredential(deps, environment);
    const engine = loadContractEngine();
    for (const [fileItem, tests] of byFile) {
      if (abort.signal.aborted) break;
      const uri = fileItem.uri!;
      const atLine = new Map(tests.map((t) => [t.range?.start.line ?? -1, t]));
      const testAt = (line: number) =>
        atLine.get(line) ?? [...atLine.entries()].filter(([l]) => l <= line).sort((a, b) => b[0] - a[0])[0]?.[1];
      const plan = engine.planContractRun([{ name: uri.fsPath, text: await textOf(uri) }], {
        api: environment.api,
        baseUrl: environment.baseUrl,
        lines: [...atLine.keys()],
        ...(environment.grpc ? { grpcTarget: environment.grpc.target } : {}),
      });
      // What stops a request from being sent (a malformed line, an unresolved {{variable}}) errs its test, at its line.
      // A line of the file's own (a global `??`) errs every test of the file.
      for (const p of plan.problems) {
        const tests = p.request === undefined ? [...atLine.values()] : [atLine.get(p.request) ?? testAt(p.line)];
        for (const test of tests) {
          if (!test || !pending.has(test)) continue;
          const message = new vscode.TestMessage(p.message);
          message.location = new vscode.Location(uri, new vscode.Position(p.line, p.column));
          verdict.errored(test, message);
          pending.delete(test);
        }
      }
      for (const f of plan.files) f.requests = f.requests.filter((r) => pending.has(atLine.get(r.line)!));
      const folder = path.dirname(uri.fsPath);
      // Each answer joins the environment's results panel history, without taking the front from what the user looks at.
      const shown = new Map<number, string>();
      await engine.runContractPlan(plan, {
        client: deps.clients.get(),
        environment,
        credential,
        signal: abort.signal,
        explainRefusal: (page) => engine.restRefusal(page, environment, credential.type),
        callGrpc: async (planned, signal) => {
          const call = deps.grpc.fileCall(environment, planned.grpc, folder);
          const result = await deps.grpc.callFile(
            environment,
            deps.grpc.auth(environment, credential),
            call,
            signal ? { signal } : {},
          );
          shown.set(
            planned.line,
            deps.results.showGrpcResult({
              environment,
              result,
              title: planned.label,
              target: call.endpoint.target,
              assertions: { assertions: planned.assertions, unsupported: planned.unsupported },
              reveal: false,
            }),
          );
          return engine.grpcTestAnswer(result, environment, credential.type);
        },
        onAnswer: (planned, result) => {
          shown.set(
            planned.line,
            deps.results.showResult({
              environment,
              result,
              title: planned.label,
              ...(planned.request?.endpointId !== undefined ? { endpointId: planned.request.endpointId } : {}),
              assertions: { assertions: planned.assertions, unsupported: planned.unsupported },
              reveal: false,
            }),
          );
        },
        onStart: (planned) => {
          const test = atLine.get(planned.line);
          if (test) run.started(test);
        },
        onRequest: (result) => {
          const test = atLine.get(result.line);
          if (!test) return;
          const resultId = shown.get(result.line);
          report(
            run,
            verdict,
            test,
            uri,
            environment,
            result,
            resultId !== undefined ? { environmentId: environment.id, resultId } : undefined,
          );
          pending.delete(test);
        },
      });
    }
    for (const test of pending) verdict.skipped(test);
  } catch (err) {
    const message = new vscode.TestMessage(errorMessage(err));
    for (const test of pending) verdict.errored(test, message);
  } finally {
    cancel.dispose();
    run.end();
  }
}
