// The results panel's history (issue #24): every send keeps its entry (endpoint and path, time, status, the jti of the
// token behind it), memory stays bounded, two entries compare (status, timing, counts, headers, items by id), and
// the header line shows the token's jti, iat and exp. Against the sandbox (a real HTTP server) and hand-made items.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { ApiResult } from '../../src/core/http/exchange';
import { ApiClient } from '../../src/core/http/apiClient';
import type { Credential } from '../../src/core/auth/credential';
import type { Environment } from '../../src/core/environment';
import { parseCredential } from '../../src/core/auth/parseCredential';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox } from '../../src/sandbox/sandboxServer';
import type { HistoryEntryView } from '../../src/shared/historyViews';
import { HISTORY_KEPT_IN_FULL, HISTORY_MAX_ENTRIES } from '../../src/shared/historyViews';
import { parseWebviewMessage } from '../../src/shared/protocol';
import { COMPARE_IDS_SHOWN, compareHistoryResults, itemDiff } from '../../src/results/history/historyCompare';
import { historyEntryOf, pathOf } from '../../src/results/history/historyEntry';
import { listingView, requestErrorView } from '../../src/results/requests/listingView';
import { tripTable } from '../../src/results/requests/resourceReaders';
import { ResultHistory } from '../../src/results/history/resultHistory';
import { listingOf, resultView } from '../../src/results/requests/resultView';
import { heldSend } from '../../src/vscode/panel/heldResult';

const trip = (id: string, duration: number) => ({
  trip_id: id,
  device_id: `d-${id}`,
  provider_id: 'p',
  trip_type: ['rider'],
  start_time: 1_700_000_000_000,
  end_time: 1_700_000_600_000,
  duration,
  distance: 1000,
  start_location: { lat: 47.1, lng: 8.5 },
  end_location: { lat: 47.2, lng: 8.6 },
});

const entry = (id: string): HistoryEntryView => ({
  id,
  kind: 'listing',
  title: id,
  method: 'GET',
  path: `/${id}`,
  environmentName: 'E',
  createdAt: 0,
  line: id,
  kept: true,
});

describe('results panel history and compare', function () {
  this.timeout(60_000);
  let sandbox: RunningSandbox;
  let credential: Credential;
  let env: Environment;
  let demoKid: string;
  const client = new ApiClient();

  before(async () => {
    sandbox = await startSandbox({ fleetSize: 120, pageSize: 100 });
    const demo = sandbox.demo;
    demoKid = demo.kid;
    credential = parseCredential({
      kind: 'ec',
      type: 'external-org',
      privateKey: readFileSync(demo.privateKeyFile, 'utf8'),
      kid: demo.kid,
      issuer: demo.issuer,
    }).credential;
    const e = sandbox.environments.find((x) => x.id === 'mds-staging');
    if (!e) throw new Error('no mds-staging');
    env = { id: e.id, name: 'Sandbox MDS', api: e.api, stage: e.stage, baseUrl: e.baseUrl };
  });
  after(async () => {
    await sandbox?.close();
  });

  const send = (path: string, itemsKey: string): Promise<ApiResult> =>
    client.request(env, credential, { path, itemsKey });
  const view = (id: string, result: ApiResult, title: string, now: number) =>
    resultView({ id, environment: env, result, title, canLoadNext: false, canCopyCurl: false, canRunAgain: true, now });

  it('lists a send by its path, status and the jti of its token, and shows the jti, iat and exp in the header facts, with no token or kid', async () => {
    const result = await send('/vehicles', 'vehicles');
    const v = view('r1', result, 'Vehicles', 1000);
    const e = historyEntryOf(v, true);
    const payload = result.pages[0].token?.claims as unknown as Record<string, unknown>;
    assert.equal(typeof payload.jti, 'string');
    assert.deepEqual(
      { path: e.path, method: e.method, status: e.status, jti: e.jti, kept: e.kept, createdAt: e.createdAt },
      {
        path: new URL(result.pages[0].url).pathname + new URL(result.pages[0].url).search,
        method: 'GET',
        status: 200,
        jti: payload.jti,
        kept: true,
        createdAt: 1000,
      },
    );
    assert.equal(v.tokenFacts?.jti, payload.jti);
    assert.equal(v.tokenFacts?.iat, new Date((payload.iat as number) * 1000).toISOString());
    assert.equal(v.tokenFacts?.exp, new Date((payload.exp as number) * 1000).toISOString());
    const text = JSON.stringify([e, v.tokenFacts]);
    const token = result.pages[0].token?.token ?? '';
    assert.ok(
      token.length > 100 && !text.includes(token) && !text.includes(token.split('.')[2]),
      'no raw token in the entry',
    );
    assert.ok(!text.includes(demoKid), 'no key id in the entry');
  });

  it('lists a request that got no answer by its path, without a status', () => {
    const failed = requestErrorView({
      id: 'x',
      environment: env,
      error: { code: 'HTTP_TIMEOUT', message: 'timed out' },
      url: `${env.baseUrl}/trips?end_time=2025-11-05T13`,
      now: 5,
    });
    const e = historyEntryOf(failed, true);
    assert.equal(e.path, `${new URL(env.baseUrl).pathname}/trips?end_time=2025-11-05T13`);
    assert.equal(e.status, undefined);
    assert.equal(e.kind, 'requestError');
    assert.equal(pathOf('not a url'), 'not a url');
  });

  it('compares two sends of different endpoints: older left, status, counts, timing, differing headers, items by device id', async () => {
    const vehicles = view('a', await send('/vehicles', 'vehicles'), 'Vehicles', 1000);
    const status = view('b', await send('/vehicles/status', 'vehicles_status'), 'Vehicle status', 2000);
    // Picked newest first: the older is still on the left.
    const c = compareHistoryResults(status, vehicles);
    assert.equal(c.left.id, 'a');
    assert.equal(c.right.id, 'b');
    assert.equal(c.left.status, 200);
    assert.equal(c.left.itemCount, vehicles.vehicles.count);
    assert.equal(c.right.itemCount, status.vehicles.count);
    assert.equal(
      c.left.totalMs,
      vehicles.pages.reduce((s, p) => s + p.response.timings.totalMs, 0),
    );
    assert.notEqual(c.left.jti, c.right.jti, 'each send has its own token');
    assert.ok(c.items.comparable, 'both tables name vehicles by device id');
    assert.equal(c.items.idLabel, 'Device ID');
    // The same fleet: every vehicle of the first page is in both.
    assert.equal(c.items.addedCount + c.items.changedCount + c.items.sameCount, new Set(status.vehicles.deviceId).size);
    for (const h of c.headers) assert.notEqual(h.left, h.right);
  });

  it('finds the items added, removed and changed by id, names at most a few of each, and counts them all', () => {
    const older = tripTable([trip('t1', 60), trip('t2', 60), trip('t3', 60)]);
    const newer = tripTable([trip('t2', 60), trip('t3', 90), trip('t4', 60)]);
    const d = itemDiff(older, newer);
    assert.deepEqual(
      { added: d.added, removed: d.removed, changed: d.changed, same: d.sameCount, label: d.idLabel },
      { added: ['t4'], removed: ['t1'], changed: ['t3'], same: 1, label: 'Trip ID' },
    );

    // A column one side leaves empty (no durations) tells nothing: no item is changed by it.
    const noDurations = tripTable([trip('t1', 60), trip('t2', 60)].map(({ duration: _omitted, ...rest }) => rest));
    assert.deepEqual(
      {
        changed: itemDiff(noDurations, tripTable([trip('t1', 60), trip('t2', 90)])).changedCount,
        same: itemDiff(noDurations, tripTable([trip('t1', 60), trip('t2', 90)])).sameCount,
      },
      { changed: 0, same: 2 },
    );

    const many = tripTable(Array.from({ length: COMPARE_IDS_SHOWN + 25 }, (_, i) => trip(`n${i}`, 1)));
    const big = itemDiff(older, many);
    assert.equal(big.addedCount, COMPARE_IDS_SHOWN + 25);
    assert.equal(big.added.length, COMPARE_IDS_SHOWN);
    assert.equal(big.removedCount, 3);
  });

  it('keeps the last few results in full and the older ones as summaries, bounded', () => {
    const history = new ResultHistory<{ n: number }>();
    const released: number[] = [];
    for (let n = 0; n < HISTORY_MAX_ENTRIES + 3; n++)
      released.push(...history.add(entry(`r${n}`), { n }).map((h) => h.n));
    const list = history.list();
    assert.equal(list.length, HISTORY_MAX_ENTRIES);
    assert.equal(list[0].id, `r${HISTORY_MAX_ENTRIES + 2}`, 'newest first');
    assert.deepEqual(
      list.map((e) => e.kept),
      list.map((_, i) => i < HISTORY_KEPT_IN_FULL),
    );
    assert.equal(
      history.held(`r${HISTORY_MAX_ENTRIES + 2 - HISTORY_KEPT_IN_FULL}`),
      undefined,
      'older results keep their summary only',
    );
    assert.deepEqual(history.held(`r${HISTORY_MAX_ENTRIES + 2}`), { n: HISTORY_MAX_ENTRIES + 2 });
    assert.equal(released.length, HISTORY_MAX_ENTRIES + 3 - HISTORY_KEPT_IN_FULL, 'every result let go of once');
    assert.equal(history.entry('r0'), undefined, 'the oldest summaries go too');
    assert.throws(() => new ResultHistory(1, 10), /at least two/);
  });

  it('an entry that keeps its summary only can still send its request again; one without a re-send says so', async () => {
    const history = new ResultHistory<{ n: number }>();
    const sent: number[] = [];
    history.add(entry('plain'), { n: -1 });
    for (let n = 0; n < HISTORY_KEPT_IN_FULL + 1; n++)
      history.add(entry(`r${n}`), { n }, () => Promise.resolve(sent.push(n)));
    const oldest = history.entry('r0');
    assert.deepEqual({ kept: oldest?.kept, canRunAgain: oldest?.canRunAgain }, { kept: false, canRunAgain: true });
    assert.equal(history.held('r0'), undefined);
    await history.again('r0')?.();
    assert.deepEqual(sent, [0], "the entry's own request");
    history.update({ ...entry('r0'), line: 'updated' });
    assert.equal(history.entry('r0')?.canRunAgain, true, 'an update keeps it');
    assert.deepEqual(
      { kept: history.entry('plain')?.kept, canRunAgain: history.entry('plain')?.canRunAgain },
      { kept: false, canRunAgain: false },
    );
    assert.equal(history.again('plain'), undefined);
    assert.equal(history.again('unknown'), undefined);
  });

  it('holds a vehicle listing and any other send in the same shape (one builder): every page and its token host-side, none in the view', async () => {
    const result = await send('/vehicles', 'vehicles');
    const fromListing = heldSend(
      listingView({
        id: 'l',
        environment: env,
        listing: listingOf(result),
        canLoadNext: true,
        canCopyCurl: true,
        now: 1,
      }),
      { environment: env, pages: result.pages, loadNext: () => Promise.resolve({ listing: listingOf(result) }) },
    );
    const fromResult = heldSend(view('r', result, 'Vehicles', 1), {
      environment: env,
      pages: result.pages,
      runAgain: () => Promise.resolve(),
      endpointId: 'vehicles',
    });
    for (const held of [fromListing, fromResult]) {
      assert.deepEqual(
        held.tokens,
        result.pages.map((p) => p.token?.token),
      );
      assert.notEqual(held.pages, result.pages, "its own list of pages: appending more leaves the caller's alone");
      assert.deepEqual(held.pages, result.pages);
      assert.equal(held.view.kind === 'listing' && held.view.canExport, true);
      assert.ok(!JSON.stringify(held.view).includes(held.tokens[0] ?? '-'), 'no raw token in the view');
    }
    assert.deepEqual(Object.keys(fromListing).sort(), ['environment', 'loadNext', 'pages', 'tokens', 'view']);
    assert.deepEqual(Object.keys(fromResult).sort(), [
      'endpointId',
      'environment',
      'pages',
      'runAgain',
      'tokens',
      'view',
    ]);
  });

  it('accepts the history messages of the webview, and no compare of an entry with itself', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'showHistoryEntry', resultId: 'r1', x: 1 }), {
      type: 'showHistoryEntry',
      resultId: 'r1',
    });
    assert.deepEqual(parseWebviewMessage({ type: 'compareHistory', leftId: 'a', rightId: 'b' }), {
      type: 'compareHistory',
      leftId: 'a',
      rightId: 'b',
    });
    assert.deepEqual(parseWebviewMessage({ type: 'runHistoryEntryAgain', resultId: 'r1', x: 1 }), {
      type: 'runHistoryEntryAgain',
      resultId: 'r1',
    });
    assert.equal(parseWebviewMessage({ type: 'runHistoryEntryAgain', resultId: '' }), undefined);
    for (const wrong of [
      { type: 'compareHistory', leftId: 'a', rightId: 'a' },
      { type: 'compareHistory', leftId: 'a' },
      { type: 'showHistoryEntry' },
    ])
      assert.equal(parseWebviewMessage(wrong), undefined);
  });
});
