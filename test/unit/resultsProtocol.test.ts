import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  PERSISTED_STATE_VERSION,
  isHostMessage,
  parsePersistedState,
  parseWebviewMessage,
} from '../../src/shared/protocol';
import { panelCsp, panelHtml } from '../../src/vscode/panel/panelHtml';

describe('results panel protocol', () => {
  describe('webview messages', () => {
    it('accepts each message the webview sends, with only the known fields', () => {
      assert.deepEqual(parseWebviewMessage({ type: 'ready', extra: 'dropped' }), { type: 'ready' });
      assert.deepEqual(parseWebviewMessage({ type: 'runAgain' }), { type: 'runAgain' });
      assert.deepEqual(parseWebviewMessage({ type: 'copyToken', resultId: 'r1' }), {
        type: 'copyToken',
        resultId: 'r1',
      });
      assert.deepEqual(parseWebviewMessage({ type: 'copyToken', resultId: 'r1', pageIndex: 2 }), {
        type: 'copyToken',
        resultId: 'r1',
        pageIndex: 2,
      });
      assert.deepEqual(parseWebviewMessage({ type: 'copyCurl', resultId: 'r1', pageIndex: 0 }), {
        type: 'copyCurl',
        resultId: 'r1',
        pageIndex: 0,
      });
      assert.deepEqual(parseWebviewMessage({ type: 'loadNextPage', resultId: 'r1' }), {
        type: 'loadNextPage',
        resultId: 'r1',
      });
      assert.deepEqual(parseWebviewMessage({ type: 'loadAllPages', resultId: 'r1' }), {
        type: 'loadAllPages',
        resultId: 'r1',
      });
      assert.deepEqual(parseWebviewMessage({ type: 'requestBody', resultId: 'r1', pageIndex: 3 }), {
        type: 'requestBody',
        resultId: 'r1',
        pageIndex: 3,
      });
      assert.deepEqual(parseWebviewMessage({ type: 'openInEditor', resultId: 'r1', pageIndex: 0 }), {
        type: 'openInEditor',
        resultId: 'r1',
        pageIndex: 0,
      });
    });

    it('ignores messages of the wrong shape without throwing', () => {
      const hostile = new Proxy(
        {},
        {
          get() {
            throw new Error('boom');
          },
          has() {
            throw new Error('boom');
          },
        },
      );
      const getter = Object.defineProperty({}, 'type', {
        get() {
          throw new Error('boom');
        },
        enumerable: true,
      });
      const wrong: unknown[] = [
        undefined,
        null,
        0,
        'ready',
        [],
        ['ready'],
        {},
        { type: 1 },
        { type: 'READY' },
        { type: 'eval', code: 'x' },
        { type: 'copyToken' },
        { type: 'copyToken', resultId: '' },
        { type: 'copyToken', resultId: 5 },
        { type: 'copyToken', resultId: 'r', pageIndex: -1 },
        { type: 'copyToken', resultId: 'r', pageIndex: 1.5 },
        { type: 'copyToken', resultId: 'r', pageIndex: '1' },
        { type: 'requestBody', resultId: 'r' },
        { type: 'requestBody', resultId: 'r', pageIndex: Number.NaN },
        { type: 'loadNextPage', resultId: 'x'.repeat(5000) },
        { type: 'openInEditor', resultId: 'r', pageIndex: 1e9 },
        hostile,
        getter,
        { type: 'toString' },
        { type: '__proto__' },
      ];
      wrong.forEach((message, i) =>
        assert.equal(parseWebviewMessage(message), undefined, `accepted wrong message #${i}`),
      );
    });
  });

  describe('host messages', () => {
    it('tells host messages from other message events', () => {
      assert.equal(isHostMessage({ type: 'show', panelKey: 'k', result: {} }), true);
      assert.equal(isHostMessage({ type: 'notice', level: 'info', text: 't' }), true);
      for (const other of [null, 'show', { type: 'ready' }, { type: 'vscode-internal' }, { data: {} }])
        assert.equal(isHostMessage(other), false);
    });
  });

  describe('persisted state', () => {
    it('keeps a valid summary and UI choices, and drops what is not ours', () => {
      const state = parsePersistedState({
        version: PERSISTED_STATE_VERSION,
        panelKey: 'env:mds-staging',
        summary: {
          kind: 'listing',
          title: 'Vehicles · MDS',
          line: '200 OK · 3 vehicles',
          createdAt: 5,
          environmentId: 'mds-staging',
          canRunAgain: true,
          rows: [1, 2, 3],
          token: 'eyJ',
        },
        ui: { bodyView: 'plot', sortColumn: 'battery', sortDescending: true, filter: 'abc', pageIndex: 2, bogus: 1 },
      });
      assert.deepEqual(state, {
        version: PERSISTED_STATE_VERSION,
        panelKey: 'env:mds-staging',
        summary: {
          kind: 'listing',
          title: 'Vehicles · MDS',
          line: '200 OK · 3 vehicles',
          createdAt: 5,
          environmentId: 'mds-staging',
          canRunAgain: true,
        },
        ui: { bodyView: 'plot', sortColumn: 'battery', sortDescending: true, filter: 'abc', pageIndex: 2 },
      });
    });

    it("keeps a harvest's origin (environment, endpoint, folder, range) so a reload can show its heatmap again", () => {
      const environment = {
        id: 'sandbox-mds',
        name: 'Local sandbox (MDS)',
        api: 'mds',
        apiLabel: 'MDS Provider API',
        stage: 'sandbox',
        baseUrl: 'http://127.0.0.1:4010/mds',
      };
      const harvest = {
        environment,
        endpoint: 'trips',
        outDir: '/data/harvest',
        from: '2025-11-04T00',
        to: '2025-11-04T23',
      };
      const summary = {
        kind: 'harvest',
        title: 'Trips hour by hour',
        line: '24 hours',
        createdAt: 7,
        canRunAgain: false,
      };
      const state = parsePersistedState({
        version: PERSISTED_STATE_VERSION,
        panelKey: 'harvest:sandbox-mds',
        summary: { ...summary, harvest: { ...harvest, extra: 'x', environment: { ...environment, token: 'eyJ' } } },
        ui: {},
      });
      assert.deepEqual(state?.summary, { ...summary, harvest }, 'what is not ours is dropped');
      for (const bad of [
        { ...harvest, from: '2025-11-4T0' },
        { ...harvest, outDir: '' },
        { ...harvest, environment: { ...environment, api: 'ftp' } },
        { ...harvest, endpoint: 7 },
      ]) {
        const parsed = parsePersistedState({
          version: PERSISTED_STATE_VERSION,
          panelKey: 'k',
          summary: { ...summary, harvest: bad },
          ui: {},
        });
        assert.deepEqual(parsed?.summary, summary, `a summary without a usable origin: ${JSON.stringify(bad)}`);
      }
      const listing = parsePersistedState({
        version: PERSISTED_STATE_VERSION,
        panelKey: 'k',
        summary: { ...summary, kind: 'listing', harvest },
        ui: {},
      });
      assert.equal(listing?.summary?.harvest, undefined, 'only a harvest summary carries an origin');
    });

    it("keeps a data-quality report's folder and its open timeline, so a reload can analyse it again and reopen the timeline", () => {
      const summary = {
        kind: 'analysis',
        title: 'Data quality: harvest',
        line: '10 rules run: 1 with errors, 0 with warnings; 0 not run',
        createdAt: 9,
        canRunAgain: false,
      };
      const state = parsePersistedState({
        version: PERSISTED_STATE_VERSION,
        panelKey: 'analysis',
        summary: { ...summary, analysis: { folder: '/data/harvest', findings: [1] } },
        ui: { timeline: { rule: 'trip-events', index: 3, extra: 1 } },
      });
      assert.deepEqual(state?.summary, { ...summary, analysis: { folder: '/data/harvest' } });
      assert.deepEqual(state?.ui, { timeline: { rule: 'trip-events', index: 3 } });
      const bad = parsePersistedState({
        version: PERSISTED_STATE_VERSION,
        panelKey: 'analysis',
        summary: { ...summary, analysis: { folder: '' } },
        ui: { timeline: { rule: 'x', index: -1 } },
      });
      assert.deepEqual(bad?.summary, summary);
      assert.deepEqual(bad?.ui, {});
      assert.deepEqual(
        parseWebviewMessage({ type: 'analysisTimeline', resultId: 'r1', rule: 'teleport', index: 0, sql: 'x' }),
        { type: 'analysisTimeline', resultId: 'r1', rule: 'teleport', index: 0 },
      );
      assert.deepEqual(parseWebviewMessage({ type: 'analyzeAgain', folder: '/etc' }), { type: 'analyzeAgain' });
      for (const wrong of [
        { type: 'analysisTimeline', resultId: 'r1', rule: '', index: 0 },
        { type: 'analysisTimeline', resultId: 'r1', rule: 'teleport', index: 1.5 },
        { type: 'analysisTimeline', rule: 'teleport', index: 0 },
      ]) {
        assert.equal(parseWebviewMessage(wrong), undefined, JSON.stringify(wrong));
      }
      assert.equal(isHostMessage({ type: 'analysisTimeline', timeline: {} }), true);
    });

    it('ignores states of another version or shape', () => {
      for (const s of [
        undefined,
        null,
        {},
        { version: 0, panelKey: 'k', ui: {} },
        { version: PERSISTED_STATE_VERSION },
        { version: PERSISTED_STATE_VERSION, panelKey: '' },
      ]) {
        assert.equal(parsePersistedState(s), undefined);
      }
      const noSummary = parsePersistedState({
        version: PERSISTED_STATE_VERSION,
        panelKey: 'k',
        summary: { kind: 'evil' },
        ui: { bodyView: 'html' },
      });
      assert.deepEqual(noSummary, { version: PERSISTED_STATE_VERSION, panelKey: 'k', ui: {} });
    });
  });

  describe('panel HTML', () => {
    it('allows only the nonce script and stylesheet, carries both inline, and escapes what it puts in', () => {
      const html = panelHtml({
        cspSource: 'https://webview.test',
        nonce: 'abc+/=',
        script: 'window.x = "a<b";\n//# sourceMappingURL=main.js.map\n',
        style: 'main { color: red; }\n/*# sourceMappingURL=main.css.map */',
        title: 'Results: <b>"x"</b>',
      });
      assert.equal(
        panelCsp('https://webview.test', 'n'),
        "default-src 'none'; img-src https://webview.test data:; style-src 'nonce-n'; font-src https://webview.test; script-src 'nonce-n'; base-uri 'none'; form-action 'none'",
      );
      assert.match(
        html,
        /<script nonce="abc\+\/=">window\.x = "a<b";\n<\/script>/,
        'the bundle inline, without its source map comment',
      );
      assert.match(
        html,
        /<style nonce="abc\+\/=">main \{ color: red; \}\n<\/style>/,
        'the stylesheet inline, without its source map comment',
      );
      assert.ok(!/<script[^>]* src=|<link/.test(html), 'the page loads nothing');
      assert.equal((html.match(/<script/g) ?? []).length, 1, 'one script tag, the bundle');
      assert.ok(!html.includes('<b>'), 'the title is escaped');
      assert.ok(!/unsafe-inline|unsafe-eval/.test(html));
      assert.ok(!/\son[a-z]+=/i.test(html), 'no inline handlers');
    });

    it('refuses a bundle or stylesheet whose text would end its element early', () => {
      const args = { cspSource: 'https://webview.test', nonce: 'n', script: '', style: '', title: 'Results' };
      assert.throws(() => panelHtml({ ...args, script: 'const s = "</SCRIPT>";' }), /holds "<\/script" or "<!--"/);
      assert.throws(() => panelHtml({ ...args, script: 'x <!-- y' }), /holds "<\/script" or "<!--"/);
      assert.throws(
        () => panelHtml({ ...args, style: 'a::after { content: "</style>" }' }),
        /holds "<\/style" or "<!--"/,
      );
    });

    it('the built bundle and stylesheet can be inlined', () => {
      const dir = path.join(__dirname, '..', '..', '..', 'dist', 'webview');
      const html = panelHtml({
        cspSource: 'https://webview.test',
        nonce: 'n',
        script: fs.readFileSync(path.join(dir, 'main.js'), 'utf8'),
        style: fs.readFileSync(path.join(dir, 'main.css'), 'utf8'),
        title: 'Results',
      });
      assert.ok(
        html.length > 100_000 && !html.includes('sourceMappingURL'),
        `${html.length} characters, no source map comment`,
      );
    });
  });
});
