// The results panel's view of a gRPC call's answer (src/results/grpc/grpcView.ts), from real calls to the sandbox's gRPC
// side: what the user sees (status line, metadata rows, the vehicle table of a stream, the refusal explained) and
// that the token the call carried never reaches the view posted to the webview.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Credential } from '../../src/core/auth/credential';
import { parseCredential } from '../../src/core/auth/parseCredential';
import type { Environment } from '../../src/core/environment/environment';
import type { GrpcAuth, GrpcCallResult, GrpcConnection, GrpcSchema } from '../../src/core/grpc/index';
import { callMethod, openConnection, reflectSchema } from '../../src/core/grpc/index';
import { ApiClient } from '../../src/core/http/apiClient';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox } from '../../src/sandbox/sandboxServer';
import { cellText, queryRows, visibleDataColumns } from '../../src/shared/dataTable';
import { vehicleDataTable } from '../../src/shared/dataTableBuild';
import { csvChunks } from '../../src/results/history/exportWriters';
import type { ListingResultView } from '../../src/shared/listingViews';
import { bodyView } from '../../src/results/requests/bodyView';
import { grpcResultView, normaliseGrpcTimes } from '../../src/results/grpc/grpcView';
import { historyEntryOf } from '../../src/results/history/historyEntry';
import { listingView } from '../../src/results/requests/listingView';
import { tableOfView } from '../../src/results/requests/resultView';
import { parseWebviewMessage } from '../../src/shared/protocol';

const FLEET = 60;
const SERVICE = 'mobility.sandbox.v1.VehicleService';

/** Every cell of the table's visible columns, row by row: what the user reads in the grid. */
function cells(view: ListingResultView): string[][] {
  const table = tableOfView(view);
  const columns = visibleDataColumns(table);
  return Array.from({ length: table.count }, (_, row) => columns.map((c) => `${c.id}=${cellText(c, row)}`));
}

describe("results panel: a gRPC call's answer", function () {
  this.timeout(60_000);
  let sandbox: RunningSandbox;
  let credential: Credential;
  let client: ApiClient;
  let environment: Environment;
  let connection: GrpcConnection;
  let schema: GrpcSchema;
  let auth: GrpcAuth;
  let target: string;

  const show = (result: GrpcCallResult, title: string, env = environment) =>
    grpcResultView({
      id: `g-${title}`,
      environment: env,
      result,
      title,
      target,
      canRunAgain: true,
      canCopyGrpcurl: true,
      now: Date.now(),
      refusal: { credentialType: 'external-org' },
    });

  before(async () => {
    // The world stands still, so REST and gRPC answers a few seconds apart read the same vehicles; tokens signed on
    // this computer's clock are at most seconds ahead of it, which the sandbox allows (60 s).
    const frozen = Date.now();
    sandbox = await startSandbox({ fleetSize: FLEET, pageSize: 1000, now: () => frozen });
    const demo = sandbox.demo;
    credential = parseCredential({
      kind: 'ec',
      type: 'external-org',
      privateKey: readFileSync(demo.privateKeyFile, 'utf8'),
      kid: demo.kid,
      issuer: demo.issuer,
    }).credential;
    client = new ApiClient();
    const e = sandbox.environments.find((x) => x.id === 'mds-staging');
    assert.ok(e?.grpcTarget);
    target = e.grpcTarget;
    environment = { id: e.id, name: 'Sandbox staging', api: e.api, stage: e.stage, baseUrl: e.baseUrl };
    // One issuer for REST and gRPC: one clock per key, as in the extension.
    auth = { environment, credential, issuer: client.issuer };
    connection = openConnection({ address: target, plaintext: true });
    schema = await reflectSchema(connection, { auth });
  });
  after(async () => {
    connection?.close();
    await sandbox?.close();
  });

  it('a stream of vehicle statuses: OK, the same table as the REST /vehicles/status answer (times included), and no token text in the view', async () => {
    const result = await callMethod(connection, schema, auth, {
      method: `${SERVICE}/ListVehicleStatus`,
      messages: [{}],
    });
    assert.equal(result.status.name, 'OK', result.status.message);
    assert.equal(result.messages.length, FLEET);
    assert.equal(
      typeof (result.messages[0].last_event as Record<string, unknown>).timestamp,
      'string',
      'int64 arrives as decimal text (proto3 JSON)',
    );
    const { view, pages } = show(result, 'VehicleService/ListVehicleStatus');
    const page = pages[0];
    assert.equal(pages.length, 1, `${FLEET} messages fit one part`);

    assert.equal(view.summary.line, `OK · ${FLEET} vehicle statuses`);
    assert.equal(view.grpc?.status.name, 'OK');
    assert.equal(view.grpc?.status.ok, true);
    assert.equal(view.grpc?.method, `/${SERVICE}/ListVehicleStatus`);
    assert.equal(view.grpc?.kind, 'server streaming');
    assert.equal(view.grpc?.target, target);
    assert.equal(view.error, undefined);
    assert.equal(view.shape, 'mds-status');
    assert.equal(view.canLoadNext, false, 'no REST paging');
    assert.equal(view.canCopyCurl, false, 'no curl for a gRPC call');
    assert.equal(view.canFetchHours, undefined);
    assert.deepEqual(view.conformance, { state: 'notMds' }, 'REST schemas are not applied to a gRPC answer');

    // The same vehicles over REST give the same table, cell for cell, last event times included.
    const rest = await client.listVehicles(environment, credential, { query: { status: true } });
    const restView = listingView({
      id: 'rest',
      environment,
      listing: rest,
      canLoadNext: false,
      canCopyCurl: false,
      now: Date.now(),
    });
    assert.equal(restView.vehicles.count, FLEET);
    const byDevice = (rows: string[][]) => rows.slice().sort((a, b) => a[0].localeCompare(b[0]));
    assert.deepEqual(byDevice(cells(view)), byDevice(cells(restView)));
    assert.ok(
      view.vehicles.lastEvent.every((t) => Number.isFinite(t) && t > 1e12),
      'every last event is a time in ms',
    );
    // Export: the CSV of the gRPC table is the REST one's (the panel's Save CSV writes exactly these chunks).
    const csv = (v: ListingResultView) =>
      [...csvChunks(tableOfView(v), queryRows(tableOfView(v), { sortColumn: 'deviceId' }))].join('');
    assert.equal(csv(view), csv(restView));

    // The token: decoded claims shown, the token itself nowhere in what is posted.
    const token = result.token?.token;
    assert.ok(token && token.length > 100);
    const posted = JSON.stringify({ type: 'show', panelKey: 'env:mds-staging', result: view });
    assert.equal(posted.includes(token), false, 'the token is not in the posted view');
    assert.equal(posted.includes(token.split('.')[2]), false, 'nor its signature');
    assert.equal(view.pages[0].token?.payload.jti, result.token?.claims.jti);
    assert.equal(view.pages[0].token?.payload.aud, environment.baseUrl);
    assert.equal(view.tokenFacts?.jti, result.token?.claims.jti);
    const authorization = view.grpc?.requestMetadata.find((h) => h.name === 'authorization');
    assert.equal(authorization?.secret, true);
    assert.match(authorization?.value ?? '', /^Bearer .{10}….{6}$/);
    // The body the JSON tree and Raw views get: {"messages": [...]}, the token scrubbed from Raw.
    const body = bodyView(page, view.id, 0);
    assert.equal(body.bodyKind, 'json');
    assert.equal((body.json as { messages: unknown[] }).messages.length, FLEET);
    assert.equal(body.raw.includes(token), false);
    assert.equal(page.token?.token, token, 'the host keeps the token for scrubbing exports');
  });

  it('a stream of vehicles reads as the vehicles table; a unary lookup shows its one message as the body', async () => {
    const stream = await callMethod(connection, schema, auth, { method: `${SERVICE}/ListVehicles`, messages: [{}] });
    const { view } = show(stream, 'VehicleService/ListVehicles');
    assert.equal(view.shape, 'mds-vehicles');
    assert.equal(view.summary.line, `OK · ${FLEET} vehicles`);
    assert.equal(tableOfView(view).count, FLEET);
    const deviceId = String(stream.messages[7].device_id);
    assert.equal(view.vehicles.deviceId[7], deviceId);

    const unary = await callMethod(connection, schema, auth, {
      method: `${SERVICE}/GetVehicle`,
      messages: [{ device_id: deviceId }],
    });
    const one = show(unary, 'VehicleService/GetVehicle');
    assert.equal(one.view.grpc?.kind, 'unary');
    assert.equal(one.view.grpc?.streamed, false);
    assert.equal(one.view.vehicles.count, 1);
    assert.equal(
      (bodyView(one.pages[0], one.view.id, 0).json as Record<string, unknown>).device_id,
      deviceId,
      'the body is the message itself',
    );
    // The response headers and trailers as rows, and the history entry says GRPC and the status name.
    assert.ok(
      one.view.grpc?.headers.some((h) => h.name === 'content-type' && h.value.startsWith('application/grpc')),
      JSON.stringify(one.view.grpc?.headers),
    );
    const entry = historyEntryOf(one.view, true);
    assert.equal(entry.method, 'GRPC');
    assert.equal(entry.path, `/${SERVICE}/GetVehicle`);
    assert.deepEqual(entry.grpc, { status: 'OK', ok: true });
    assert.equal(entry.status, undefined, 'no HTTP status for a gRPC call');
  });

  it("UNAUTHENTICATED: the status, the rule the sandbox names and the refusal doctor's explanation, as for a REST 401", async () => {
    const wrong: Environment = { ...environment, baseUrl: `${environment.baseUrl}-elsewhere` };
    const result = await callMethod(
      connection,
      schema,
      { ...auth, environment: wrong },
      { method: `${SERVICE}/ListVehicles`, messages: [{}] },
    );
    assert.equal(result.status.name, 'UNAUTHENTICATED');
    const { view } = show(result, 'VehicleService/ListVehicles', environment);
    assert.equal(view.grpc?.status.ok, false);
    assert.match(view.summary.line, /^UNAUTHENTICATED: /);
    assert.equal(view.error?.title, 'UNAUTHENTICATED (16)');
    assert.equal(view.error?.status, undefined, 'no HTTP status badge');
    assert.equal(view.error?.rule?.id, 'aud_mismatch');
    assert.equal(
      view.error?.facts.some((f) => f.name === 'rule'),
      false,
      'the rule shows once, not again as a fact',
    );
    assert.ok(view.error?.explanation, 'the refusal is explained');
    assert.equal(view.error?.explanation?.causeRule, 'aud_mismatch');
    assert.ok(
      view.error?.tips.some((t) => /base URL/.test(t)),
      JSON.stringify(view.error?.tips),
    );
    assert.equal(view.outcome, 'error');
    assert.equal(JSON.stringify(view).includes(result.token?.token ?? '<none>'), false);
    assert.deepEqual(historyEntryOf(view, true).grpc, { status: 'UNAUTHENTICATED', ok: false });
  });

  it('int64 times as decimal text become numbers for the table only; other text stays as it is', () => {
    const message = {
      device_id: '12345',
      last_event: { timestamp: '1763476200000', event_types: ['x'] },
      last_telemetry: null,
      name: '007',
    };
    const normalised = normaliseGrpcTimes(message) as typeof message & { last_event: { timestamp: unknown } };
    assert.equal(normalised.last_event.timestamp, 1763476200000);
    assert.equal(normalised.device_id, '12345');
    assert.equal(message.last_event.timestamp, '1763476200000', 'the message itself (the JSON view) is unchanged');
    const untouched = { device_id: 'a', vehicle_type: 'bicycle' };
    assert.equal(normaliseGrpcTimes(untouched), untouched, 'nothing copied when nothing changes');
  });

  it('100,000 streamed vehicles build the table in one pass, without copying the messages into the view', () => {
    const n = 100_000;
    const messages = Array.from({ length: n }, (_, i) => ({
      device_id: `d${i}`,
      provider_id: 'p',
      vehicle_id: `v${i}`,
      vehicle_type: i % 2 ? 'bicycle' : 'scooter',
      propulsion_types: ['electric'],
      last_event: {
        vehicle_state: 'available',
        event_types: ['service_start'],
        timestamp: String(1763476200000 + i),
        location: { lat: 52.5, lng: 13.4 },
      },
      last_telemetry: null,
    }));
    const result: GrpcCallResult = {
      method: {
        service: SERVICE,
        name: 'ListVehicleStatus',
        fullName: `/${SERVICE}/ListVehicleStatus`,
        clientStreaming: false,
        serverStreaming: true,
        inputType: 'x',
        outputType: 'y',
      },
      status: { code: 0, name: 'OK', message: '', details: [] },
      headers: {},
      trailers: {},
      messages,
      messageCount: messages.length,
      requestMetadata: {},
      receivedAtMs: Date.now(),
      timings: { queuedMs: 0, signMs: 0, totalMs: 1 },
    };
    const { view, pages } = show(result, 'big');
    assert.equal(view.vehicles.count, n);
    // The JSON tree and Raw get a part of 1,000 messages at a time, as a REST page, never the 100,000 at once.
    assert.equal(pages.length, 100);
    assert.equal(view.pages.length, 100);
    assert.deepEqual(
      view.pages.map((p) => p.itemCount),
      Array(100).fill(1000),
    );
    const part = bodyView(pages[99], view.id, 99);
    assert.equal((part.json as { messages: { device_id: string }[] }).messages[999].device_id, `d${n - 1}`);
    assert.ok(part.rawTotalChars < 2_000_000, `one part's Raw is small (${part.rawTotalChars} characters)`);
    assert.equal(view.pages[1].token, undefined, 'the token view is sent once, with the first part');
    assert.equal(view.vehicles.lastEvent[n - 1], 1763476200000 + n - 1);
    assert.equal(vehicleDataTable(view.vehicles, 'vehicles_status').count, n);
    assert.equal(view.summary.line, 'OK · 100,000 vehicle statuses');
    assert.equal(
      (pages[0].body as { messages: unknown[] }).messages[0],
      messages[0],
      'the host holds the messages as they came, not copies',
    );
    assert.equal('messages' in view, false);
  });

  it('the webview asks for "Copy as grpcurl" with the result id only', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'copyGrpcurl', resultId: 'r1', command: 'grpcurl …' }), {
      type: 'copyGrpcurl',
      resultId: 'r1',
    });
    assert.equal(parseWebviewMessage({ type: 'copyGrpcurl' }), undefined);
  });
});
