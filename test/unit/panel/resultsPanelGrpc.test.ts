// A gRPC call's answer in the results panel's real browser bundle (headless Chromium, the standalone page of
// standalonePanelPage.ts): a real call to the sandbox's gRPC side, its view model as showGrpcResult builds it,
// then what the user sees: the status, the vehicles table with the stream's row count and times, the gRPC
// buttons (and none of the REST-only ones), the refusal explained, the history entry, and 100,000 streamed
// vehicles kept virtualised. The token never reaches the page; "Copy as grpcurl" posts the result id only.
// Run alone: node esbuild.js --tests && npx mocha --no-config out/test/unit/panel/resultsPanelGrpc.test.js
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import type { GrpcAuth, GrpcCallResult, GrpcConnection, GrpcSchema } from '../../../src/core/grpc/index';
import { callMethod, openConnection, reflectSchema } from '../../../src/core/grpc/index';
import { TokenIssuer } from '../../../src/core/auth/tokenIssuer';
import { cellText } from '../../../src/shared/dataTable';
import { vehicleDataTable } from '../../../src/shared/dataTableBuild';
import { grpcResultView } from '../../../src/results/grpc/grpcView';
import { historyEntryOf } from '../../../src/results/history/historyEntry';
import { axeViolations, describeViolations } from '../../e2e/panelFrame';
import { deliverHostMessages as deliver, postedMessages, useStandalonePanel } from './standalonePanelPage';

const SERVICE = 'mobility.sandbox.v1.VehicleService';
const FLEET = 300;

const ARTIFACTS = process.env.E2E_ARTIFACTS_DIR ?? path.join(process.cwd(), 'test-results', 'panel');

/** A screenshot for the reader of a failed (or passed) run. */
async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `grpc-${name}.png`), fullPage: true });
}

/** Every section open, then axe-core's serious and critical findings, described (empty when clean). */
async function axeFindings(page: Page): Promise<string> {
  await page.evaluate(() => document.querySelectorAll('vscode-collapsible').forEach((c) => c.setAttribute('open', '')));
  return describeViolations(await axeViolations(page));
}

/** Resolves after two more frames and the tasks queued before them. */
async function nextFrames(page: Page): Promise<void> {
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 0)))),
  );
}

describe("results panel bundle in Chromium: a gRPC call's answer", function () {
  this.timeout(180_000);
  const panel = useStandalonePanel({ fleetSize: FLEET });
  let connection: GrpcConnection;
  let schema: GrpcSchema;
  let auth: GrpcAuth;
  let target: string;

  before(async () => {
    target = panel.sandbox.environments.find((e) => e.id === 'mds-staging')?.grpcTarget ?? '';
    assert.ok(target, 'the sandbox serves gRPC');
    auth = { environment: panel.environment, credential: panel.credential, issuer: new TokenIssuer() };
    connection = openConnection({ address: target, plaintext: true });
    schema = await reflectSchema(connection, { auth });
  });
  after(() => connection?.close());

  const viewOf = (result: GrpcCallResult, id: string) =>
    grpcResultView({
      id,
      environment: panel.environment,
      result,
      title: 'VehicleService/ListVehicleStatus',
      target,
      credentialLabel: 'demo',
      canRunAgain: true,
      canCopyGrpcurl: true,
      now: Date.now(),
      refusal: { credentialType: 'external-org' },
    }).view;

  it('shows a streamed vehicle-status answer: status, the vehicles table with every message, gRPC buttons only, no token', async () => {
    const result = await callMethod(connection, schema, auth, {
      method: `${SERVICE}/ListVehicleStatus`,
      messages: [{}],
    });
    assert.equal(result.status.name, 'OK', result.status.message);
    const view = viewOf(result, 'grpc-ok');
    const page = await panel.openPanel();
    await deliver(
      page,
      { type: 'show', panelKey: 'env:mds-staging', result: view },
      { type: 'history', entries: [historyEntryOf(view, true)], shownId: view.id },
    );

    await page.locator('[data-testid="grpc-status"]').waitFor();
    assert.equal(
      (await page.locator('[data-testid="grpc-status"] [data-testid="status"]').textContent())?.trim(),
      'OK',
    );
    assert.equal(await page.locator('[data-testid="summary-line"]').textContent(), `OK · ${FLEET} vehicle statuses`);
    assert.equal(await page.locator('[data-testid="grpc-method"]').textContent(), `/${SERVICE}/ListVehicleStatus`);
    assert.equal(await page.locator('[data-testid="grpc-target"]').textContent(), target);
    const count = page.locator('[data-testid="row-count"]');
    await count.waitFor();
    assert.equal(await count.getAttribute('data-rows'), String(FLEET));
    // The first row as the REST table shows it: the device id, and the last event's time read from int64 text.
    const table = vehicleDataTable(view.vehicles, 'vehicles_status');
    const lastEvent = table.columns.find((c) => c.id === 'lastEvent');
    assert.ok(lastEvent);
    assert.equal(
      await page.locator('.vt-row[aria-rowindex="2"] [data-col="deviceId"]').textContent(),
      view.vehicles.deviceId[0],
    );
    const shownTime = (await page.locator('.vt-row[aria-rowindex="2"] [data-col="lastEvent"]').textContent())?.trim();
    assert.ok(shownTime, 'the last event time is shown');
    assert.equal(shownTime, cellText(lastEvent, 0));

    // Metadata: the authorization sent is shortened, the response headers are listed.
    await page.locator('[data-testid="section-grpc-metadata"]').click();
    assert.match(
      (await page.locator('[data-testid="grpc-request-metadata"]').textContent()) ?? '',
      /authorization.*Bearer .{10}….{6}/s,
    );
    assert.match((await page.locator('[data-testid="grpc-headers"]').textContent()) ?? '', /content-type/);

    // Buttons: Copy as grpcurl and Run again; none of REST's.
    for (const gone of ['copy-curl-top', 'load-next-page', 'load-all-pages', 'fetch-hours'])
      assert.equal(await page.locator(`[data-testid="${gone}"]`).count(), 0, gone);
    assert.equal(await page.locator('[data-testid="export-csv"]').count(), 1, 'the table can be saved as CSV');
    await page.locator('[data-testid="copy-grpcurl"]').click();
    await page.locator('[data-testid="run-again"]').click();
    const sent = await postedMessages(page);
    assert.deepEqual(
      sent.find((m) => m.type === 'copyGrpcurl'),
      { type: 'copyGrpcurl', resultId: view.id },
    );
    assert.ok(sent.some((m) => m.type === 'runAgain'));

    // The history lists the call with its gRPC status.
    assert.match((await page.locator('[data-testid="history-entry"]').first().textContent()) ?? '', /GRPC.*OK/s);
    const token = result.token?.token ?? '';
    assert.ok(token.length > 100);
    assert.equal((await page.content()).includes(token), false, 'the token is not in the page');
    assert.equal(await axeFindings(page), '', 'no serious or critical axe violation');
    await shot(page, 'stream');
    await page.close();
  });

  it('explains UNAUTHENTICATED as a REST 401 is explained', async () => {
    const wrong = { ...auth, environment: { ...panel.environment, baseUrl: `${panel.environment.baseUrl}-elsewhere` } };
    const result = await callMethod(connection, schema, wrong, {
      method: `${SERVICE}/ListVehicleStatus`,
      messages: [{}],
    });
    assert.equal(result.status.name, 'UNAUTHENTICATED');
    const page = await panel.openPanel();
    await deliver(page, { type: 'show', panelKey: 'env:mds-staging', result: viewOf(result, 'grpc-refused') });
    await page.locator('[data-testid="refusal"]').waitFor();
    assert.equal(await page.locator('[data-testid="error-title"]').textContent(), 'UNAUTHENTICATED (16)');
    assert.match((await page.locator('[data-testid="refusal-cause"]').textContent()) ?? '', /audience|aud/i);
    assert.equal(await page.locator('[data-testid="error-rule"]').textContent(), 'aud_mismatch');
    assert.equal(await axeFindings(page), '', 'no serious or critical axe violation');
    await shot(page, 'refused');
    await page.close();
  });

  it('keeps a stream of 100,000 vehicles virtualised', async () => {
    const status = await callMethod(connection, schema, auth, {
      method: `${SERVICE}/ListVehicleStatus`,
      messages: [{}],
    });
    const messages = Array.from({ length: 100_000 }, (_, i) => ({
      ...status.messages[i % status.messages.length],
      device_id: `row-${i}`,
    }));
    const view = viewOf({ ...status, messages }, 'grpc-big');
    const page = await panel.openPanel();
    await deliver(page, { type: 'show', panelKey: 'big', result: view });
    await page.waitForFunction(
      () => document.querySelector('[data-testid="row-count"]')?.getAttribute('data-rows') === '100000',
    );
    const grid = page.locator('[data-testid="vehicle-table"]');
    await grid.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await nextFrames(page);
    const lastRow = page.locator('.vt-row[aria-rowindex="100001"] [data-col="deviceId"]');
    await lastRow.waitFor({ timeout: 20_000 });
    assert.equal(await lastRow.textContent(), 'row-99999');
    const rendered = await page.locator('.vt-row').count();
    assert.ok(rendered < 80, `${rendered} rows in the DOM`);

    // The JSON tree asks for one part of 1,000 messages at a time, as for a REST page.
    assert.equal(
      await page.locator('[data-testid="grpc-part"]').textContent(),
      'JSON and Raw show messages 1 to 1,000 of 100,000',
    );
    await page.locator('[data-testid="view-tree"]').click();
    await page.locator('[data-testid="grpc-part-next"]').click();
    assert.equal(
      await page.locator('[data-testid="grpc-part"]').textContent(),
      'JSON and Raw show messages 1,001 to 2,000 of 100,000',
    );
    await page.waitForFunction(() =>
      (window as unknown as { __posted: { type: string; pageIndex?: number }[] }).__posted.some(
        (m) => m.type === 'requestBody' && m.pageIndex === 1,
      ),
    );
    const asked = (await postedMessages<{ type: string; resultId?: string; pageIndex?: number }>(page)).filter(
      (m) => m.type === 'requestBody',
    );
    assert.deepEqual(
      asked.map((m) => m.pageIndex),
      [0, 1],
    );
    await page.close();
  });
});
