import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SignJWT, compactVerify, decodeProtectedHeader } from 'jose';
import type { Page } from 'playwright-core';
import { FileClockStore } from '../../src/core/clock/fileClockStore';
import { keyIdDigest } from '../../src/core/clock/stateDir';
import { maskKeyId } from '../../src/core/base/redact';
import type { Needle, ScanReport, ScanSource } from './secretScan';
import {
  browserStorageSources,
  canaryKey,
  codeServerSecrets,
  describeReport,
  extensionGlobalState,
  fileSources,
  frameSources,
  scan,
  tokenNeedles,
} from './secretScan';
import { waitUntil } from '../unit/support/waitUntil';
import { e2eFolders, useWorkbench } from './session';
import {
  answerInputBox,
  openViewContainer,
  pickQuickPickItem,
  runCommand,
  step,
  treeRow,
  treeRows,
  waitForNotification,
  waitForSandboxRunning,
} from './workbench';
import { webviewWith } from './panelFrame';

const EXTENSION_ID = 'mobility-api-explorer.mobility-api-explorer';
/** A secret (spec 5.7): shown only masked, except in the Decode JWT view of a token the user hands in. */
const KID = `canary-kid-${randomBytes(8).toString('hex')}`;
const MASKED_KID = maskKeyId(KID);
const ISSUER = 'canary@org.test.invalid';
const LABEL = 'Canary credential';
const ENVIRONMENT = 'Sandbox · MDS staging';

/** The clipboard's text once it differs from `previous` (VS Code writes it through navigator.clipboard). */
async function clipboardAfter(page: Page, previous: string, timeoutMs = 20_000): Promise<string> {
  // The clipboard's text is a secret here: the failure says only that it did not change.
  const changed = await waitUntil(
    'the clipboard to change (something copied)',
    async () => {
      const text = await page.evaluate(() => navigator.clipboard.readText());
      return text && text !== previous ? text : '';
    },
    (text) => text !== '',
    { timeoutMs, intervalMs: 250 },
  );
  return changed;
}

/** Reads until `ok` accepts the value (e.g. once VS Code has flushed its storage) or time is up; returns the last value. */
async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  let last: T | undefined;
  const track = async () => (last = await read());
  // Time running out is not a failure here: the caller asserts on the last value, which says what was wrong.
  return waitUntil('the value to be accepted', track, ok, { timeoutMs, intervalMs: 500 }).catch(() => last as T);
}

/** The shared issue clock's marks of this run (key id digest → last iat), as its per-key files hold them. */
function clockMarks(): Promise<Record<string, number>> {
  return new FileClockStore(e2eFolders().stateDir).readMarks();
}

const hitList = (r: ScanReport) => r.hits.map((h) => `${h.what} in ${h.source}`).join('\n');

/**
 * A canary credential goes through the whole life of a credential in the real VS Code, driven like a
 * user: added by pasting its PEM, used for a listing, exported as curl, a token generated and decoded,
 * then removed. Everything the run wrote or shows is scanned for the key and for every token it signed.
 */
describe('a canary credential leaves no trace', function () {
  this.timeout(240_000);
  // Registered before useWorkbench(), so that it runs while the browser is still open: the next test
  // file's workbench shares this code-server, so leave the sandbox stopped as we found it.
  after(async () => {
    await runCommand(wb.page, 'Mobility API: Stop Local Sandbox').catch(() => undefined);
  });
  const wb = useWorkbench({ clipboard: true });
  const key = canaryKey(KID);
  const folders = e2eFolders();
  // What the user explicitly copied, in order: the only place a token may be.
  const clipboardHistory: string[] = [];
  const tokens: string[] = [];

  const allFiles = () =>
    fileSources({
      'user-data': folders.userDataDir,
      extensions: folders.extensionsDir,
      workspace: folders.workspaceDir,
    });
  const needles = (): Needle[] => [
    ...key.needles,
    { name: 'the canary kid', text: KID },
    ...tokens.flatMap((t, i) => tokenNeedles(t, `copied token ${i + 1}`)),
  ];
  async function everything(page: Page, extra: ScanSource[] = []): Promise<ScanSource[]> {
    return [...allFiles(), ...(await browserStorageSources(page)), ...(await frameSources(page)), ...extra];
  }

  it('adds the canary credential by pasting its PEM, bound to the sandbox', async () => {
    const page = wb.page;
    await step(page, 'open the Mobility API view container', () => openViewContainer(page, 'Mobility API'));
    await step(page, 'start the local sandbox', async () => {
      await runCommand(page, 'Mobility API: Start Local Sandbox');
      await waitForSandboxRunning(page);
    });
    await step(page, 'run "Mobility API: Add Credential"', () => runCommand(page, 'Mobility API: Add Credential'));
    await step(page, 'pick External Organization', () => pickQuickPickItem(page, 'External Organization'));
    await step(page, 'choose to paste the key', () => pickQuickPickItem(page, 'Paste it'));
    await step(page, 'paste the canary PEM', () => answerInputBox(page, key.pem, /Paste/));
    await step(page, 'enter the key id', () => answerInputBox(page, KID, /Key id/));
    await step(page, 'enter the issuer', () => answerInputBox(page, ISSUER, /Issuer/));
    await step(page, 'name it', () => answerInputBox(page, LABEL, /name/));
    await step(page, `bind it to ${ENVIRONMENT}`, async () => {
      await pickQuickPickItem(page, ENVIRONMENT);
      await page.keyboard.press('Enter');
    });
    await step(page, 'see it stored', () => waitForNotification(page, new RegExp(`Stored "${LABEL}"`)));
    const row = await step(page, 'see it in the Credentials view', () => treeRow(page, 'Credentials', LABEL));
    assert.ok((await row.innerText()).includes(`kid ${MASKED_KID}`), 'the Credentials view shows the kid masked');
    assert.ok(!(await row.innerText()).includes(KID));
  });

  it('lists vehicles with it, and "Copy curl" puts a fresh canary-signed token on the clipboard', async () => {
    const page = wb.page;
    await step(page, 'run "Mobility API: List Vehicles" on the sandbox', async () => {
      await runCommand(page, 'Mobility API: List Vehicles');
      await pickQuickPickItem(page, ENVIRONMENT);
    });
    const frame = await step(page, 'wait for the results panel', () =>
      webviewWith(page, '[data-testid="summary-line"]'),
    );
    await step(page, 'see 200 OK', async () => {
      await frame.locator('[data-testid="summary-line"]', { hasText: '200 OK' }).first().waitFor({ timeout: 30_000 });
    });
    const before = await page.evaluate(() => navigator.clipboard.readText());
    await step(page, 'click "Copy curl (fresh token)"', async () => {
      await frame.locator('[data-testid="copy-curl-top"], [data-testid="copy-curl"]').first().click();
      await frame.locator('[data-testid="notices"]', { hasText: 'Copied a curl command' }).waitFor({ timeout: 20_000 });
    });
    const curl = await clipboardAfter(page, before);
    clipboardHistory.push(curl);
    const token = /Bearer ([A-Za-z0-9_.-]+)/.exec(curl)?.[1] ?? '';
    assert.equal(decodeProtectedHeader(token).kid, KID, 'the curl command carries a canary token');
    await compactVerify(token, key.publicKey);
    tokens.push(token);
  });

  it('Generate Token copies a canary token, and Decode JWT verifies it against the stored key', async () => {
    const page = wb.page;
    const before = clipboardHistory.at(-1) ?? '';
    await step(page, 'run "Mobility API: Generate Token"', async () => {
      await runCommand(page, 'Mobility API: Generate Token');
      await pickQuickPickItem(page, ENVIRONMENT);
      await waitForNotification(page, /is on the clipboard/);
    });
    const token = await clipboardAfter(page, before);
    clipboardHistory.push(token);
    await compactVerify(token, key.publicKey);
    assert.equal(decodeProtectedHeader(token).kid, KID);
    assert.ok(!tokens.includes(token), 'a fresh token, not the one of the curl command');
    tokens.push(token);
    await step(page, 'run "Mobility API: Decode JWT" (it reads the token from the clipboard)', () =>
      runCommand(page, 'Mobility API: Decode JWT'),
    );
    const frame = await step(page, 'see the decoded token', () =>
      webviewWith(page, `[data-testid="token-preview"]:text("${token.slice(-6)}")`),
    );
    await step(page, 'see the signature verified with the stored canary key', async () => {
      await frame
        .locator('[data-testid="signature-state"]', { hasText: /verified/i })
        .first()
        .waitFor({ timeout: 20_000 });
    });
    // The decoded view of a token the user hands in is the one place its kid shows whole (it is their own text).
    await step(page, 'close the decoded view', () => runCommand(page, 'View: Close Editor'));
  });

  it('while the credential is stored, neither its key nor any token it signed is in any file, storage, log, setting or webview', async () => {
    const page = wb.page;
    await step(page, 'show the log, so that its lines are on screen too', () =>
      runCommand(page, 'Mobility API: Show Log'),
    );
    const logFile = () =>
      allFiles().find((s) =>
        /exthost\d*\/mobility-api-explorer\.mobility-api-explorer\/Mobility API\.log$/.test(s.name),
      );
    const log = await eventually(
      () => Promise.resolve(logFile()),
      (f) => !!f && f.bytes.includes(`kid ${MASKED_KID}`),
    );
    assert.ok(log, 'the extension log file is among the scanned files');
    assert.ok(
      log.bytes.includes(`kid ${MASKED_KID}`),
      "the log is this session's: it names the canary kid, masked (spec 5.7: a kid is a secret)",
    );
    const settings = allFiles().find((s) => s.name === 'file:user-data/User/settings.json');
    assert.ok(settings, 'settings.json is among the scanned files');
    const marks = await clockMarks();
    assert.equal(
      typeof marks[keyIdDigest(KID)],
      'number',
      "the shared issue clock holds the canary's mark (by digest, not by kid)",
    );
    assert.ok(!JSON.stringify(marks).includes(KID), 'the clock file does not name the kid');
    const secrets = await codeServerSecrets(page, folders.userDataDir);
    assert.ok(
      secrets && Object.values(secrets).some((v) => v.includes(key.needles[0].text)),
      'the decrypted SecretStorage holds the canary key: the one place it belongs',
    );

    const report = await scan(await everything(page), needles(), key);
    console.log(`      ${describeReport('while stored', report)}`);
    assert.equal(report.hits.length, 0, hitList(report));
    assert.ok(
      report.files > 10 && report.sources > report.files + 10,
      'files, storage entries and frames were scanned',
    );
  });

  it('the scan finds the canary when it is planted: key text, a copied token, and a token it never saw', async () => {
    const page = wb.page;
    const unseen = await new SignJWT({ iss: ISSUER, aud: 'https://planted.test.invalid' })
      .setProtectedHeader({ alg: 'ES256', kid: 'not-the-canary-kid' })
      .sign(key.privateKey);
    const planted = [
      path.join(folders.workspaceDir, 'planted-key.txt'),
      path.join(folders.userDataDir, 'User', 'planted-token.json'),
      path.join(folders.extensionsDir, 'planted-unseen.log'),
    ];
    fs.writeFileSync(planted[0], `config = "${key.needles[1].text}"\nkid = "${KID}"\n`);
    fs.writeFileSync(planted[1], JSON.stringify({ token: tokens[1] }));
    fs.writeFileSync(planted[2], `Authorization: Bearer ${unseen}\n`);
    try {
      const report = await scan(await everything(page), needles(), key);
      const where = (file: string) =>
        report.hits.filter((h) => h.source.endsWith(path.basename(file))).map((h) => h.what);
      console.log(`      ${describeReport('with planted canaries', report)}`);
      assert.deepEqual(where(planted[0]), ['PEM body line 2', 'the canary kid']);
      assert.ok(
        where(planted[1]).includes('copied token 2') &&
          where(planted[1]).some((w) => /signed by the canary key/.test(w)),
        where(planted[1]).join(', '),
      );
      assert.deepEqual(where(planted[2]), ['a token of not-the-canary-kid (signed by the canary key)']);
    } finally {
      for (const file of planted) fs.rmSync(file, { force: true });
    }
  });

  it('Remove Credential (after the modal confirm) removes every trace: the key, its secret entry and its clock entry', async () => {
    const page = wb.page;
    await step(page, 'run "Mobility API: Remove Credential"', async () => {
      await runCommand(page, 'Mobility API: Remove Credential');
      await pickQuickPickItem(page, LABEL);
    });
    await step(page, 'confirm in the modal dialog', async () => {
      const dialog = page.locator('.monaco-dialog-box');
      await dialog.waitFor({ timeout: 20_000 });
      assert.ok((await dialog.innerText()).includes(`Remove "${LABEL}" (kid ${MASKED_KID})`), await dialog.innerText());
      await dialog
        .locator('.monaco-button', { hasText: /^\s*Remove\s*$/ })
        .first()
        .click();
    });
    await step(page, 'see it gone from the Credentials view', async () => {
      const labels = await eventually(
        async () => (await treeRows(page, 'Credentials')).map((r) => r.label),
        (l) => !l.includes(LABEL),
      );
      assert.ok(!labels.includes(LABEL), `the Credentials view still shows: ${labels.join(' | ')}`);
      assert.ok(labels.includes('Sandbox demo credential'), 'the other credential stays');
    });
    // A mark of the last 3 s stays (another process may still sign with the key); the canary signed long before.
    const marks = await eventually(
      () => clockMarks(),
      (m) => !(keyIdDigest(KID) in m),
    );
    assert.ok(!(keyIdDigest(KID) in marks), `the issue clock still has the canary's mark: ${JSON.stringify(marks)}`);
    assert.ok(
      fs.existsSync(path.join(e2eFolders().stateDir, 'clock')),
      "the issue clock itself is still stored (only the canary's file went)",
    );
    const state = await extensionGlobalState(page, EXTENSION_ID);
    assert.ok(!JSON.stringify(state ?? {}).includes(KID), 'globalState does not name the canary kid');
    const secrets = await eventually(
      () => codeServerSecrets(page, folders.userDataDir),
      (s) => !JSON.stringify(s ?? {}).includes(KID),
    );
    assert.ok(secrets, 'SecretStorage can still be read');
    assert.ok(!JSON.stringify(secrets).includes(KID), 'no SecretStorage entry names the canary kid');

    const decrypted: ScanSource = {
      name: 'SecretStorage (decrypted)',
      bytes: Buffer.from(JSON.stringify(secrets), 'utf8'),
    };
    const report = await scan(await everything(page, [decrypted]), needles(), key);
    console.log(`      ${describeReport('after removal', report)}`);
    console.log(
      `      clipboard history (the user's explicit copies, not scanned): ${clipboardHistory.length} entries, ${tokens.length} canary tokens`,
    );
    assert.equal(report.hits.length, 0, hitList(report));
  });
});
