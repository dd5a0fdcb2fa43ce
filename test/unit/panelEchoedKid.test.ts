import assert from 'node:assert/strict';
import { decodeProtectedHeader } from 'jose';
import { ApiClient } from '../../src/core/http/apiClient';
import { IssueClock } from '../../src/core/clock/issueClock';
import { TokenIssuer } from '../../src/core/auth/tokenIssuer';
import { maskKeyId } from '../../src/core/base/redact';
import type { Environment } from '../../src/core/environment/environment';
import { freeRequest } from '../../src/core/mds/mdsRequests';
import { cellText } from '../../src/shared/dataTable';
import { resultView, tableOfView } from '../../src/results/requests/resultView';
import { bodyView } from '../../src/results/requests/bodyView';
import type { TestServer } from './support/testServer';
import { startTestServer } from './support/testServer';
import { makeTestCredential } from './support/testCredentials';

const DEVICE = '3c9604d6-b5ee-11e8-96f8-529269fb1459';
const PROVIDER = '5f7114d1-4091-46ee-b492-e55875f7de00';

/** Every cell of the panel's table of `view`, as the grid shows and copies it. */
function cells(view: ReturnType<typeof resultView>): string[] {
  const table = tableOfView(view);
  return table.columns.flatMap((c) => Array.from({ length: table.count }, (_, row) => cellText(c, row)));
}

// Spec 5.7: the kid is masked everywhere it is shown, also when a server echoes it inside its items.
describe('results panel: a key id a server echoes inside its items is masked in the table and the JSON tree', function () {
  this.timeout(30_000);
  let server: TestServer;
  let env: Environment;
  const client = new ApiClient({ issuer: new TokenIssuer({ clock: new IssueClock({ precision: 'milliseconds' }) }) });

  before(async () => {
    // Echoes the kid of the token it received into the items: a vehicle's id and a trip's type.
    server = await startTestServer((req, res) => {
      const kid = String(decodeProtectedHeader(String(req.headers.authorization).replace(/^Bearer /, '')).kid);
      res.setHeader('Content-Type', 'application/vnd.mds+json;version=2.0');
      if (req.url?.startsWith('/mds/trips')) {
        res.end(
          JSON.stringify({
            version: '2.0.0',
            trips: [
              {
                trip_id: 'b1b2b3b4-0000-4000-8000-000000000001',
                device_id: DEVICE,
                provider_id: PROVIDER,
                trip_type: [`seen ${kid}`],
                start_time: 1_700_000_000_000,
                end_time: 1_700_000_600_000,
                duration: 600,
                distance: 1200,
              },
            ],
          }),
        );
        return;
      }
      res.end(
        JSON.stringify({
          version: '2.0.0',
          vehicles: [
            {
              device_id: DEVICE,
              provider_id: PROVIDER,
              vehicle_id: kid,
              vehicle_type: 'scooter',
              propulsion_types: ['electric'],
            },
          ],
          links: {},
        }),
      );
    });
    env = { id: 't', name: 'Test', api: 'mds', stage: 'staging', baseUrl: `${server.url}/mds` };
  });
  after(async () => {
    await server?.close();
  });

  for (const [what, kid] of [
    ['a long kid', 'org-key-2026-11-production-0001'],
    ['a short kid', 'k1234567'],
  ] as const) {
    it(`${what}: vehicles and trips tables, and the JSON tree`, async () => {
      const credential = makeTestCredential('external-org', { kid });
      for (const path of ['/vehicles', '/trips?end_time=2026-11-20T07']) {
        const result = await client.request(env, credential, freeRequest('mds', path));
        assert.equal(result.pages[0].status, 200);
        assert.ok(JSON.stringify(result.items).includes(kid), 'the server echoed the kid');
        const view = resultView({
          id: 'r',
          environment: env,
          result,
          title: 'T',
          canLoadNext: false,
          canCopyCurl: false,
          canRunAgain: false,
          now: Date.now(),
        });
        const shown = cells(view);
        assert.ok(
          shown.some((c) => c.includes(maskKeyId(kid))),
          `${path}: the masked kid is shown in its cell (${shown.join(' | ')})`,
        );
        assert.ok(!shown.some((c) => c.includes(kid)), `${path}: no cell shows the kid`);
        assert.ok(shown.includes(DEVICE), `${path}: the server's other values are shown as they came`);
        const body = bodyView(result.pages[0], 'r', 0);
        assert.ok(
          !JSON.stringify(body.json).includes(kid) && !body.raw.includes(kid),
          `${path}: neither the JSON tree nor Raw shows the kid`,
        );
        assert.ok(JSON.stringify(body.json).includes(DEVICE));
      }
    });
  }
});
