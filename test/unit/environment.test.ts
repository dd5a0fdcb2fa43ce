import assert from 'node:assert/strict';
import { audienceOf, normaliseBaseUrl, withoutTrailingSlashes } from '../../src/core/environment/environment';
import { vehiclesUrl } from '../../src/core/environment/apiRequest';
import type { Environment } from '../../src/core/environment/environment';
import { MobilityError } from '../../src/core/base/errors';

const mds: Environment = { id: 'mds-staging', name: 'MDS staging', api: 'mds', stage: 'staging', baseUrl: 'https://mds.example.test/provider/' };

describe('environment', () => {
  it('uses the base URL without trailing slash as audience, or a one-element list', () => {
    assert.equal(audienceOf(mds), 'https://mds.example.test/provider');
    assert.deepEqual(audienceOf({ ...mds, audienceAsList: true }), ['https://mds.example.test/provider']);
  });
  it('builds the MDS and MaaS vehicles paths', () => {
    assert.equal(vehiclesUrl(mds), 'https://mds.example.test/provider/vehicles');
    assert.equal(vehiclesUrl(mds, { status: true }), 'https://mds.example.test/provider/vehicles/status');
    assert.equal(vehiclesUrl({ ...mds, api: 'maas', baseUrl: 'https://maas.example.test' }), 'https://maas.example.test/v1alpha2/vehicles');
  });
  it('refuses an empty base URL with a message that says to set it', () => {
    assert.throws(() => vehiclesUrl({ ...mds, baseUrl: '' }), (e: unknown) => e instanceof MobilityError && e.code === 'BASE_URL_MISSING' && /Set its base URL/.test(e.message));
    assert.throws(() => vehiclesUrl({ ...mds, baseUrl: 'ftp://x' }), (e: unknown) => e instanceof MobilityError && e.code === 'BASE_URL_INVALID');
  });
  it('checks every base URL by its own text, however often it was checked before (the checked ones are remembered)', () => {
    const isCode = (code: string, name: string) => (e: unknown) => e instanceof MobilityError && e.code === code && e.message.includes(name);
    for (let round = 0; round < 3; round++) {
      assert.equal(normaliseBaseUrl('https://mds.example.test/provider//', 'A'), 'https://mds.example.test/provider');
      assert.equal(normaliseBaseUrl(' https://mds.example.test/provider ', 'A'), 'https://mds.example.test/provider');
      // A bad one is refused every time, naming the environment it was asked for.
      assert.throws(() => normaliseBaseUrl('https://mds.example.test/provider?x=1', `B${round}`), isCode('BASE_URL_INVALID', `B${round}`));
      assert.throws(() => normaliseBaseUrl('   ', `C${round}`), isCode('BASE_URL_MISSING', `C${round}`));
      assert.throws(() => normaliseBaseUrl(undefined, `D${round}`), isCode('BASE_URL_MISSING', `D${round}`));
    }
    // More base URLs than are remembered: each still gets its own answer.
    for (let i = 0; i < 200; i++) assert.equal(normaliseBaseUrl(`https://h${i}.example.test/p/`, 'E'), `https://h${i}.example.test/p`);
    assert.throws(() => normaliseBaseUrl('ftp://h1.example.test/p', 'F'), isCode('BASE_URL_INVALID', 'F'));
  });
  it('drops only trailing slashes, also after a long run of slashes inside', () => {
    assert.equal(withoutTrailingSlashes('https://h/a///'), 'https://h/a');
    assert.equal(withoutTrailingSlashes('///'), '');
    const inner = `/${'/'.repeat(100_000)}x`;
    assert.equal(withoutTrailingSlashes(inner), inner);
  });
});
