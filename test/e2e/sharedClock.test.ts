// Issue 13, measured: one clock per key across two VS Code windows, the CLI in a loop and a script, all
// signing with one key at once against a sandbox process that enforces spec 5.1 rule 6 (strictly
// increasing iat per key). This file is also the script: run as `node out/test/e2e/sharedClock.test.js`
// with SHARED_CLOCK_E2E_ROLE=script, it lists vehicle statuses on the core library until its deadline.
// E2E_SHARED_CLOCK_SECONDS shortens the load window (default 60, as the issue asks).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { ApiClient } from '../../src/core/http/apiClient';
import type { Environment } from '../../src/core/environment/environment';
import { maskKeyId } from '../../src/core/base/redact';
import { FileClockStore } from '../../src/core/clock/fileClockStore';
import { IssueClock } from '../../src/core/clock/issueClock';
import { parseCredential } from '../../src/core/auth/parseCredential';
import { openSharedClock, stateDirOption } from '../../src/core/clock/sharedClock';
import { TokenIssuer } from '../../src/core/auth/tokenIssuer';
import type { SandboxRequestLog } from '../../src/sandbox/sandboxServer';
import { waitFor, waitUntil } from '../unit/support/waitUntil';
import { webviewWith } from './panelFrame';
import { e2eFolders, useWorkbench } from './session';
import {
  answerInputBox,
  openViewContainer,
  pickQuickPickItem,
  quickInputState,
  runCommand,
  runCommandAndPick,
  step,
  treeRow,
  waitForNotification,
  waitForWorkbench,
} from './workbench';

const ROLE = process.env.SHARED_CLOCK_E2E_ROLE;
const THIS_FILE = __filename;
const CLI = path.join(process.cwd(), 'dist', 'cli.js');
const LABEL = 'Shared clock key';
const WINDOWS = [
  { name: 'window A', environment: 'Shared clock · window A', id: 'shared-clock-a', sandboxEnvironment: 'mds-staging' },
  {
    name: 'window B',
    environment: 'Shared clock · window B',
    id: 'shared-clock-b',
    sandboxEnvironment: 'mds-production',
  },
] as const;

/** The demo credential file the sandbox writes (no key material in it, a path to the key). */
interface DemoCredential {
  kid: string;
  issuer: string;
  privateKeyFile: string;
}

/** What the script prints when its deadline has passed. */
interface ScriptReport {
  statuses: Record<string, number>;
  errors: string[];
}

// ---------------------------------------------------------------- the script (a child process)

/**
 * A script on the core, as a user writes one: the shared clock of MOBILITY_API_STATE_DIR, millisecond
 * precision, one listing after another until the deadline it is given on stdin ("go <ms>").
 */
async function runScript(): Promise<void> {
  const demo = JSON.parse(fs.readFileSync(process.env.CREDENTIAL_FILE!, 'utf8')) as DemoCredential;
  const credential = parseCredential({
    kind: 'ec',
    type: 'external-org',
    kid: demo.kid,
    issuer: demo.issuer,
    privateKey: fs.readFileSync(demo.privateKeyFile, 'utf8'),
  }).credential;
  const environment: Environment = {
    id: 'mds-staging',
    name: 'script',
    api: 'mds',
    stage: 'staging',
    baseUrl: process.env.BASE_URL!,
  };
  const shared = openSharedClock(stateDirOption(undefined), {
    onProblem: (m) => process.stderr.write(`script: ${m}\n`),
  });
  const client = new ApiClient({
    issuer: new TokenIssuer({ clock: new IssueClock({ store: shared.store, precision: 'milliseconds' }) }),
    queue: shared.queue,
    userAgent: 'shared-clock e2e script',
  });
  process.stdout.write('ready\n');
  const line = await new Promise<string>((resolve) => process.stdin.once('data', (d: Buffer) => resolve(d.toString())));
  const deadline = Number(/go (\d+)/.exec(line)?.[1]);
  const report: ScriptReport = { statuses: {}, errors: [] };
  while (Date.now() < deadline && report.errors.length < 5) {
    try {
      const status = (await client.listVehicles(environment, credential, { query: { status: true } })).pages[0].status;
      report.statuses[status] = (report.statuses[status] ?? 0) + 1;
    } catch (err) {
      report.errors.push(err instanceof Error ? err.message : String(err));
    }
  }
  process.stdout.write(`${JSON.stringify(report)}\n`);
  process.exit(0);
}

// ---------------------------------------------------------------- helpers of the test

/** A sandbox log line with the moment the test read it. */
type Served = SandboxRequestLog & { at: number };

/** Lines of a child's stream, as they come. */
function onLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let buffer = '';
  stream.on('data', (d: Buffer) => {
    buffer += d.toString();
    let i: number;
    while ((i = buffer.indexOf('\n')) >= 0) {
      onLine(buffer.slice(0, i));
      buffer = buffer.slice(i + 1);
    }
  });
}

/** Resolves with the first line of `child`'s stdout that `match` accepts; rejects when the child ends first. */
function lineOf(child: ChildProcess, match: (line: string) => boolean, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    onLines(child.stdout!, (line) => {
      if (match(line)) resolve(line);
    });
    child.once('exit', (code) =>
      reject(new Error(`${what} ended (exit ${String(code)}) before it printed what was awaited`)),
    );
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

/** Runs the built CLI once; its exit code and stderr. */
function runCli(args: string[]): Promise<{ code: number | null; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('exit', (code) => resolve({ code, err }));
  });
}

/** The CLI in a loop, one listing per run, until the deadline: the exit codes and the stderr of failed runs. */
async function cliLoop(
  args: string[],
  deadline: number,
): Promise<{ codes: Record<string, number>; failures: string[] }> {
  const codes: Record<string, number> = {};
  const failures: string[] = [];
  while (Date.now() < deadline && failures.length < 5) {
    const { code, err } = await runCli(args);
    codes[String(code)] = (codes[String(code)] ?? 0) + 1;
    if (code !== 0) failures.push(err.trim());
  }
  return { codes, failures };
}

/** Cancels a window's running listing from its progress notification (it keeps the pages it has). */
async function cancelListing(page: Page, environment: string): Promise<void> {
  await page.bringToFront();
  const toast = page
    .locator('.notifications-toasts .notification-toast', { hasText: `Vehicles of ${environment}` })
    .first();
  // No progress toast: the listing stopped by itself (a refused page ends it), and its panel says why.
  if (
    !(await toast.waitFor({ state: 'visible', timeout: 10_000 }).then(
      () => true,
      () => false,
    ))
  )
    return;
  await toast.hover();
  await toast.locator('.monaco-button', { hasText: 'Cancel' }).first().click();
}

if (ROLE === 'script') {
  runScript().catch((err: unknown) => {
    process.stderr.write(`script failed: ${String((err as Error)?.stack ?? err)}\n`);
    process.exit(3);
  });
} else {
  describe('one clock per key: two windows, the CLI in a loop and a script sign with one key at once (issue 13)', function () {
    const seconds = Number(process.env.E2E_SHARED_CLOCK_SECONDS || 60);
    const loadMs = (Number.isFinite(seconds) && seconds > 0 ? seconds : 60) * 1000;
    this.timeout(loadMs + 300_000);
    const folders = e2eFolders();
    const settingsFile = path.join(folders.userDataDir, 'User', 'settings.json');
    let work = '';
    const served: Served[] = [];
    const children: ChildProcess[] = [];
    let sandbox: ChildProcess | undefined;
    let info: { environments: Array<{ name: string; baseUrl: string }>; demo: { credentialFile: string; kid: string } };
    let original: string | undefined;
    let second: Page | undefined;
    const baseUrl = (name: string) => info.environments.find((e) => e.name === name)!.baseUrl;

    // Before useWorkbench()'s hooks: the windows load with the environments in the settings.
    before(async () => {
      work = fs.mkdtempSync(path.join(os.tmpdir(), 'shared-clock-e2e-'));
      // Its own process, as a user runs it; a large fleet of one vehicle per page, so that a window's
      // "List Vehicles" goes on page after page, a fresh token each, until it is cancelled.
      sandbox = spawn(
        process.execPath,
        [
          CLI,
          'sandbox',
          '--json',
          '--log',
          '--fleet',
          '100000',
          '--page-size',
          '1',
          '--demo-dir',
          path.join(work, 'demo'),
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      onLines(sandbox.stderr!, (line) => {
        try {
          served.push({ ...(JSON.parse(line) as SandboxRequestLog), at: Date.now() });
        } catch {
          process.stdout.write(`      sandbox: ${line}\n`);
        }
      });
      info = JSON.parse(await lineOf(sandbox, (l) => l.startsWith('{'), 'the sandbox')) as typeof info;
      original = fs.readFileSync(settingsFile, 'utf8');
      const settings = JSON.parse(original) as Record<string, unknown>;
      settings['mobilityApi.customEnvironments'] = WINDOWS.map((w) => ({
        id: w.id,
        name: w.environment,
        api: 'mds',
        baseUrl: baseUrl(w.sandboxEnvironment),
      }));
      settings['mobilityApi.token.clockPrecision'] = 'milliseconds';
      settings['mobilityApi.request.loadAllPages'] = true;
      settings['mobilityApi.request.maxPages'] = 100_000;
      fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
    });
    after(async () => {
      await second?.close().catch(() => undefined);
      if (original !== undefined) fs.writeFileSync(settingsFile, original);
      for (const child of [...children, ...(sandbox ? [sandbox] : [])]) {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGINT');
          await exited(child);
        }
      }
      if (work) fs.rmSync(work, { recursive: true, force: true });
    });
    const wb = useWorkbench();

    it("stores the sandbox's key in the first window; the second window (its own extension host) has it too", async () => {
      const page = wb.page;
      const demo = JSON.parse(fs.readFileSync(info.demo.credentialFile, 'utf8')) as DemoCredential;
      await step(page, 'open the Mobility API view container', () => openViewContainer(page, 'Mobility API'));
      await step(page, "add the sandbox's key by pasting its PEM", async () => {
        await runCommand(page, 'Mobility API: Add Credential');
        await pickQuickPickItem(page, 'External Organization');
        await pickQuickPickItem(page, 'Paste it');
        await answerInputBox(page, fs.readFileSync(demo.privateKeyFile, 'utf8'), /Paste/);
        await answerInputBox(page, demo.kid, /Key id/);
        await answerInputBox(page, demo.issuer, /Issuer/);
        await answerInputBox(page, LABEL, /name/);
        // Bound to nothing: it is the only credential, so every environment signs with it.
        await waitUntil(
          'the question which environments to bind it to',
          () => quickInputState(page),
          (q) => q?.rows.includes(WINDOWS[0].environment) === true,
        );
        await page.keyboard.press('Enter');
        await waitForNotification(page, new RegExp(`Stored "${LABEL}"`));
      });
      second = await page.context().newPage();
      const other = second;
      await step(other, 'open the same workbench in a second tab', async () => {
        await other.goto(page.url());
        await waitForWorkbench(other);
        await openViewContainer(other, 'Mobility API');
      });
      const row = await step(other, "see the key in the second window's Credentials view", () =>
        treeRow(other, 'Credentials', LABEL, 60_000),
      );
      // The tree names a key by its kid masked (a secret, spec 5.7).
      assert.ok((await row.innerText()).includes(`kid ${maskKeyId(demo.kid)}`), await row.innerText());
    });

    it(`for ${loadMs / 1000} s, both windows, the CLI in a loop and a script, started at once on one key, get no refusal`, async () => {
      assert.ok(second, 'the second window is open');
      const pages = [wb.page, second];
      const stateDir = folders.stateDir;
      const script = spawn(process.execPath, ['--enable-source-maps', THIS_FILE], {
        env: {
          ...process.env,
          SHARED_CLOCK_E2E_ROLE: 'script',
          MOBILITY_API_STATE_DIR: stateDir,
          CREDENTIAL_FILE: info.demo.credentialFile,
          BASE_URL: baseUrl('mds-staging'),
        },
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      children.push(script);
      await lineOf(script, (l) => l === 'ready', 'the script');
      const scriptReport = lineOf(script, (l) => l.startsWith('{'), 'the script');
      served.length = 0;

      const start = Date.now();
      const deadline = start + loadMs;
      // All four at once: the windows' listings run until cancelled, the CLI and the script until the deadline.
      const windowsStarted = Promise.all(
        WINDOWS.map((w, i) =>
          step(pages[i], `run "List Vehicles" on ${w.environment} in ${w.name}`, () =>
            runCommandAndPick(pages[i], 'Mobility API: List Vehicles', w.environment),
          ),
        ),
      );
      const cli = cliLoop(
        [
          'vehicles',
          '--api',
          'maas',
          '--base-url',
          baseUrl('maas-staging'),
          '--credential',
          info.demo.credentialFile,
          '--precision',
          'milliseconds',
          '--state-dir',
          stateDir,
        ],
        deadline,
      );
      script.stdin.write(`go ${deadline}\n`);
      await windowsStarted;

      // The load window: watch it, and stop early when the sandbox refused a token or a client died.
      await waitFor(
        'the end of the load window, a refusal or a client that died',
        () =>
          Date.now() >= deadline ||
          served.some((e) => e.status === 401) ||
          script.exitCode !== null ||
          sandbox?.exitCode !== null,
        { timeoutMs: loadMs + 5_000, intervalMs: 500 },
      );
      for (const [i, w] of WINDOWS.entries())
        await step(pages[i], `cancel the listing of ${w.name}`, () => cancelListing(pages[i], w.environment));
      const stopped: string[] = [];
      for (const [i, w] of WINDOWS.entries()) {
        stopped.push(
          await step(pages[i], `see ${w.name}'s listing end in its results panel`, async () => {
            // Show this window first, as its user would. The page loads nothing of its own (no request through VS Code's
            // webview service worker, which once left window B's page at "Loading…": src/vscode/panel/panelHtml.ts).
            await pages[i].bringToFront();
            const frame = await webviewWith(pages[i], '[data-testid="summary-line"]');
            const texts = await frame
              .locator('[data-testid="summary-line"], [data-testid="stopped-because"]')
              .allInnerTexts();
            return texts.map((t) => t.trim()).join(' ');
          }),
        );
      }
      const cliResult = await cli;
      const report = JSON.parse(await scriptReport) as ScriptReport;
      await exited(script);
      const end = Date.now();

      const clients = [
        ...WINDOWS.map((w) => ({ name: w.name, path: `/${w.sandboxEnvironment}/vehicles` })),
        { name: 'CLI loop', path: '/maas-staging/v1alpha2/vehicles' },
        { name: 'script', path: '/mds-staging/vehicles/status' },
      ];
      const figures = clients.map((c) => {
        const mine = served.filter((e) => e.path === c.path);
        const accepted = mine.filter((e) => e.status === 200);
        return {
          ...c,
          accepted: accepted.length,
          refused: mine.filter((e) => e.status === 401).length,
          other: mine.filter((e) => e.status !== 200 && e.status !== 401).length,
          first: accepted[0]?.at ?? Infinity,
          last: accepted.at(-1)?.at ?? -Infinity,
        };
      });
      const seconds = (end - start) / 1000;
      process.stdout.write(
        `      shared clock, one key, ${seconds.toFixed(1)} s of load (window ${loadMs / 1000} s):\n`,
      );
      for (const f of figures) {
        process.stdout.write(
          `        ${f.name.padEnd(9)} ${String(f.accepted).padStart(6)} accepted (${(f.accepted / seconds).toFixed(1)}/s), ${f.refused} refused, ${f.other} other\n`,
        );
      }
      process.stdout.write(
        `        sandbox   ${served.length} answered in all, ${served.filter((e) => e.status === 401).length} refused; CLI runs by exit code ${JSON.stringify(cliResult.codes)}; script statuses ${JSON.stringify(report.statuses)}\n`,
      );
      process.stdout.write(`        windows   ${stopped.map((s, i) => `${WINDOWS[i].name}: "${s}"`).join('; ')}\n`);

      const refusals = served
        .filter((e) => e.status === 401)
        .slice(0, 10)
        .map((e) => `${e.path}: ${e.rule}: ${e.description}`);
      assert.deepEqual(refusals, [], 'the sandbox refused no token of any client');
      assert.deepEqual(
        served.filter((e) => e.status !== 200).map((e) => `${e.path} ${e.status}`),
        [],
        'every request was answered 200',
      );
      assert.deepEqual(cliResult.failures, [], 'every CLI run exited 0');
      assert.deepEqual(report.errors, [], 'the script met no error');
      assert.deepEqual(Object.keys(report.statuses), ['200'], 'the script saw only 200s');
      assert.equal(
        report.statuses['200'],
        figures[3].accepted,
        'the sandbox counted every request of the script on its path',
      );
      assert.equal(cliResult.codes['0'], figures[2].accepted, 'the sandbox counted every CLI run on its path');
      for (const f of figures) assert.ok(f.accepted >= 3, `${f.name} made progress: ${f.accepted} accepted request(s)`);
      // All four were at work at the same time: each began before any of them ended.
      const lastToStart = figures.reduce((a, b) => (a.first > b.first ? a : b));
      const firstToEnd = figures.reduce((a, b) => (a.last < b.last ? a : b));
      assert.ok(
        lastToStart.first < firstToEnd.last,
        `${lastToStart.name} started after ${firstToEnd.name} had ended: they did not run at once`,
      );
      for (const [i, s] of stopped.entries()) {
        // Counts are shown with the locale's grouping: "1,501 pages".
        assert.match(s, /cancelled after [\d,]+ pages/, `${WINDOWS[i].name}'s listing ran until it was cancelled`);
        // The window's own count: the sandbox may have answered the page whose request Cancel aborted.
        const pagesShown = Number(/after ([\d,]+) pages/.exec(s)?.[1].replaceAll(',', ''));
        assert.ok(
          pagesShown <= figures[i].accepted && pagesShown >= figures[i].accepted - 1,
          `${WINDOWS[i].name} shows ${pagesShown} pages, the sandbox accepted ${figures[i].accepted}`,
        );
      }
      const { kid } = JSON.parse(fs.readFileSync(info.demo.credentialFile, 'utf8')) as DemoCredential;
      assert.ok(new FileClockStore(stateDir).readMark(kid) !== undefined, "the key's mark is in the one state folder");
    });
  });
}
