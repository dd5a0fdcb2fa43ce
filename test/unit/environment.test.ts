import assert from 'node:assert/strict';
import { audienceOf, normaliseBaseUrl, withoutTrailingSlashes } from '../../src/core/environment/environment';
import { readConfiguredEnvironments } from '../../src/core/environment/configuredEnvironments';
import type { BuiltInEnvironment, EnvironmentSettings } from '../../src/core/environment/configuredEnvironments';
import { vehiclesUrl } from '../../src/core/environment/apiRequest';
import type { Environment } from '../../src/core/environment/environment';
import { MobilityError } from '../../src/core/base/errors';

const mds: Environment = {
  id: 'mds-staging',
  name: 'MDS staging',
  api: 'mds',
  stage: 'staging',
  baseUrl: 'https://mds.example.test/provider/',
};

describe('environment', () => {
  it('uses the base URL without trailing slash as audience, or a one-element list', () => {
    assert.equal(audienceOf(mds), 'https://mds.example.test/provider');
    assert.deepEqual(audienceOf({ ...mds, audienceAsList: true }), ['https://mds.example.test/provider']);
  });
  it('builds the MDS and MaaS vehicles paths', () => {
    assert.equal(vehiclesUrl(mds), 'https://mds.example.test/provider/vehicles');
    assert.equal(vehiclesUrl(mds, { status: true }), 'https://mds.example.test/provider/vehicles/status');
    assert.equal(
      vehiclesUrl({ ...mds, api: 'maas', baseUrl: 'https://maas.example.test' }),
      'https://maas.example.test/v1alpha2/vehicles',
    );
  });
  it('refuses an empty base URL with a message that says to set it', () => {
    assert.throws(
      () => vehiclesUrl({ ...mds, baseUrl: '' }),
      (e: unknown) => e instanceof MobilityError && e.code === 'BASE_URL_MISSING' && /Set its base URL/.test(e.message),
    );
    assert.throws(
      () => vehiclesUrl({ ...mds, baseUrl: 'ftp://x' }),
      (e: unknown) => e instanceof MobilityError && e.code === 'BASE_URL_INVALID',
    );
  });
  it('checks every base URL by its own text, however often it was checked before (the checked ones are remembered)', () => {
    const isCode = (code: string, name: string) => (e: unknown) =>
      e instanceof MobilityError && e.code === code && e.message.includes(name);
    for (let round = 0; round < 3; round++) {
      assert.equal(normaliseBaseUrl('https://mds.example.test/provider//', 'A'), 'https://mds.example.test/provider');
      assert.equal(normaliseBaseUrl(' https://mds.example.test/provider ', 'A'), 'https://mds.example.test/provider');
      // A bad one is refused every time, naming the environment it was asked for.
      assert.throws(
        () => normaliseBaseUrl('https://mds.example.test/provider?x=1', `B${round}`),
        isCode('BASE_URL_INVALID', `B${round}`),
      );
      assert.throws(() => normaliseBaseUrl('   ', `C${round}`), isCode('BASE_URL_MISSING', `C${round}`));
      assert.throws(() => normaliseBaseUrl(undefined, `D${round}`), isCode('BASE_URL_MISSING', `D${round}`));
    }
    // More base URLs than are remembered: each still gets its own answer.
    for (let i = 0; i < 200; i++)
      assert.equal(normaliseBaseUrl(`https://h${i}.example.test/p/`, 'E'), `https://h${i}.example.test/p`);
    assert.throws(() => normaliseBaseUrl('ftp://h1.example.test/p', 'F'), isCode('BASE_URL_INVALID', 'F'));
  });
  it('drops only trailing slashes, also after a long run of slashes inside', () => {
    assert.equal(withoutTrailingSlashes('https://h/a///'), 'https://h/a');
    assert.equal(withoutTrailingSlashes('///'), '');
    const inner = `/${'/'.repeat(100_000)}x`;
    assert.equal(withoutTrailingSlashes(inner), inner);
  });

  describe('a base URL with a user name or password', () => {
    const PASSWORD = 'pa55-Secret-in-url';
    const refusedWithoutPassword = (name: string) => (e: unknown) =>
      e instanceof MobilityError &&
      e.code === 'BASE_URL_INVALID' &&
      e.message.includes(`"${name}"`) &&
      /Remove the user name and password from the base URL: credentials go in the credential/.test(e.message) &&
      !e.message.includes(PASSWORD);
    it('is refused wherever it is checked, naming the environment and never the password', () => {
      for (const text of [
        `https://user:${PASSWORD}@mds.example.test/provider`,
        `http://:${PASSWORD}@127.0.0.1:8080`,
        `https://${PASSWORD}@mds.example.test`,
        ` HTTPS://u:${PASSWORD}@h.example.test/ `,
      ]) {
        assert.throws(() => normaliseBaseUrl(text, 'Prod'), refusedWithoutPassword('Prod'), text);
        assert.throws(() => audienceOf({ ...mds, name: 'Prod', baseUrl: text }), refusedWithoutPassword('Prod'), text);
        assert.throws(() => vehiclesUrl({ ...mds, name: 'Prod', baseUrl: text }), refusedWithoutPassword('Prod'), text);
      }
      // One that does not parse either: the message would otherwise quote it.
      assert.throws(
        () => normaliseBaseUrl(`https://user:${PASSWORD}@bad host/`, 'Prod'),
        refusedWithoutPassword('Prod'),
      );
      // An "@" in the path is no user info.
      assert.equal(normaliseBaseUrl('https://mds.example.test/p/@team', 'A'), 'https://mds.example.test/p/@team');
    });
    it('in a custom audience too', () => {
      assert.throws(
        () => audienceOf({ ...mds, audience: [`https://u:${PASSWORD}@mds.example.test`] }),
        (e: unknown) =>
          e instanceof MobilityError &&
          e.code === 'AUDIENCE_INVALID' &&
          /Remove them/.test(e.message) &&
          !e.message.includes(PASSWORD),
      );
    });
  });

  describe('the environments of the settings (VS Code)', () => {
    const PASSWORD = 'pa55-Secret-in-settings';
    const BUILT_IN: BuiltInEnvironment[] = [
      {
        id: 'mds-staging',
        api: 'mds',
        stage: 'staging',
        name: 'MDS Provider API (staging)',
        setting: 'mds.stagingBaseUrl',
      },
    ];
    const settings = (over: Partial<EnvironmentSettings>): EnvironmentSettings => ({
      section: 'mobilityApi',
      builtInBaseUrls: {},
      grpcEnvironments: {},
      customEnvironments: [],
      headersFor: () => ({}),
      audienceAsList: false,
      ...over,
    });
    it('reads the custom environments as before', () => {
      const read = readConfiguredEnvironments(
        settings({
          builtInBaseUrls: { 'mds.stagingBaseUrl': ' https://mds.example.test ' },
          customEnvironments: [
            { name: 'Lab', api: 'maas', baseUrl: 'https://lab.example.test/' },
            { name: 'No api', baseUrl: 'https://x.example.test' },
          ],
        }),
        BUILT_IN,
      );
      assert.deepEqual(
        read.environments.map((e) => [e.id, e.baseUrl]),
        [
          ['mds-staging', 'https://mds.example.test'],
          ['custom-lab', 'https://lab.example.test/'],
        ],
      );
      assert.deepEqual(read.problems, ['mobilityApi.customEnvironments[1]: "api" must be "mds" or "maas".']);
    });
    it('refuses a custom environment whose base URL holds a password: a problem that says what to fix, the environment left out', () => {
      const read = readConfiguredEnvironments(
        settings({
          customEnvironments: [
            { name: 'Partner', api: 'mds', baseUrl: `https://me:${PASSWORD}@partner.example.test/mds` },
          ],
        }),
        BUILT_IN,
      );
      assert.deepEqual(
        read.environments.map((e) => e.id),
        ['mds-staging'],
      );
      assert.equal(read.problems.length, 1);
      assert.match(
        read.problems[0],
        /^mobilityApi\.customEnvironments\[0\]: The base URL of "Partner" holds a user name or password.*Remove the user name and password from the base URL/,
      );
      assert.ok(!JSON.stringify(read).includes(PASSWORD));
    });
    it('refuses a built-in base URL with a password: the environment stays, without a base URL, and the problem names the setting', () => {
      const read = readConfiguredEnvironments(
        settings({ builtInBaseUrls: { 'mds.stagingBaseUrl': `https://me:${PASSWORD}@mds.example.test` } }),
        BUILT_IN,
      );
      assert.equal(read.environments[0].baseUrl, '');
      assert.match(
        read.problems[0],
        /^mobilityApi\.mds\.stagingBaseUrl: The base URL of "MDS Provider API \(staging\)" holds a user name or password/,
      );
      assert.ok(!JSON.stringify(read).includes(PASSWORD));
    });
    it('refuses a custom audience that holds a password', () => {
      const read = readConfiguredEnvironments(
        settings({
          customEnvironments: [
            {
              name: 'Partner',
              api: 'mds',
              baseUrl: 'https://partner.example.test',
              audience: `https://me:${PASSWORD}@partner.example.test`,
            },
          ],
        }),
        BUILT_IN,
      );
      assert.equal(read.environments.length, 1);
      assert.match(read.problems[0], /"audience" holds a user name or password/);
      assert.ok(!JSON.stringify(read).includes(PASSWORD));
    });
  });
});
