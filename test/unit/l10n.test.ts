// Localisation plumbing: unconfigured (the CLI) everything is English and en-US; configured with a bundle and a
// display language (the extension host, the webview), our strings, counts and core errors follow them. This file
// is its own bundle, so configuring @vscode/l10n here leaves the other test files English.
import assert from 'node:assert/strict';
import { MobilityError, errorMessage } from '../../src/core/base/errors';
import { normaliseBaseUrl } from '../../src/core/environment/environment';
import { describeRelative } from '../../src/core/base/relativeTime';
import { listingLine } from '../../src/results/requests/listingView';
import { formatBytes, formatCount, nounText, plural } from '../../src/shared/format';
import { configureL10n, formatLanguage } from '../../src/shared/l10n';
import { panelHtml } from '../../src/vscode/panel/panelHtml';

const PANEL = { cspSource: 'https://webview.test', nonce: 'n', script: 'void 0;', style: 'main {}', title: 'Results' };

describe('localisation', () => {
  after(() => configureL10n({ contents: {}, displayLanguage: 'en' }));

  describe('unconfigured, as in the CLI', () => {
    it('prints English and en-US numbers', () => {
      assert.equal(formatLanguage(), 'en-US');
      assert.equal(plural(1234, 'vehicle'), '1,234 vehicles');
      assert.equal(plural(1, 'page'), '1 page');
      assert.equal(formatBytes(1536), '1.5 KB');
      assert.equal(
        listingLine({ status: 200, statusText: 'OK', itemCount: 500, pageCount: 5, moreExist: false }),
        '200 OK · 500 vehicles · 5 pages',
      );
      assert.equal(describeRelative(0, 4 * 60_000), '4 min ago');
    });

    it('puts the page without a bundle, in English', () => {
      const html = panelHtml(PANEL);
      assert.match(html, /<html lang="en">/);
      assert.match(html, /Loading…/);
    });
  });

  describe('configured with a bundle and a display language', () => {
    before(() =>
      configureL10n({
        displayLanguage: 'de',
        contents: {
          '{0} {1}': '{0} {1}',
          vehicle: 'Fahrzeug',
          vehicles: 'Fahrzeuge',
          page: 'Seite',
          pages: 'Seiten',
          '{0} KB': '{0} KB',
          '{0} min': '{0} Min.',
          '{0} ago': 'vor {0}',
          'Loading…': 'Wird geladen…',
          'The environment "{0}" has no base URL. Set its base URL in the settings first.':
            'Die Umgebung „{0}“ hat keine Basis-URL.',
        },
      }),
    );

    it('counts, plurals and decimals in the display language through Intl', () => {
      assert.equal(formatLanguage(), 'de');
      assert.equal(formatCount(1234), '1.234');
      assert.equal(plural(1234, 'vehicle'), '1.234 Fahrzeuge');
      assert.equal(plural(1, 'vehicle'), '1 Fahrzeug');
      assert.equal(formatBytes(1536), '1,5 KB');
      assert.equal(
        listingLine({ status: 200, statusText: 'OK', itemCount: 500, pageCount: 1, moreExist: false }),
        '200 OK · 500 Fahrzeuge · 1 Seite',
      );
      assert.equal(describeRelative(0, 4 * 60_000), 'vor 4 Min.');
    });

    it("leaves a noun that is not ours (a server's key) as it is, and English where the bundle has no entry", () => {
      assert.equal(nounText('scooter_rides'), 'scooter_rides');
      assert.equal(plural(2, 'trip'), '2 trips');
    });

    it('builds core errors in the display language, with their code', () => {
      let caught: unknown;
      try {
        normaliseBaseUrl('', 'MDS staging');
      } catch (err) {
        caught = err;
      }
      assert.ok(caught instanceof MobilityError);
      assert.equal(caught.code, 'BASE_URL_MISSING');
      assert.equal(errorMessage(caught), 'Die Umgebung „MDS staging“ hat keine Basis-URL.');
    });

    it('gives the page the bundle as an escaped attribute and the language', () => {
      const html = panelHtml({
        ...PANEL,
        l10n: { language: 'de', contents: { 'a<b>"c"': '</main><script>x</script>' } },
      });
      assert.match(html, /<html lang="de">/);
      assert.match(html, /Wird geladen…/);
      assert.equal((html.match(/<script/g) ?? []).length, 1, 'still one script tag: the bundle is data');
      const attr = /data-l10n="([^"]*)"/.exec(html)?.[1] ?? '';
      const decoded = attr.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));
      assert.deepEqual(JSON.parse(decoded), { contents: { 'a<b>"c"': '</main><script>x</script>' }, language: 'de' });
    });

    it('falls back to en-US numbers for a language Intl does not know', () => {
      // Node's ICU has no data for the pseudo-locale (nor for "xx"); "not a tag!" is not even a language tag.
      for (const displayLanguage of ['qps-ploc', 'xx', 'not a tag!']) {
        configureL10n({ displayLanguage });
        assert.equal(formatLanguage(), 'en-US', displayLanguage);
        assert.equal(formatCount(1234), '1,234', displayLanguage);
      }
      configureL10n({ displayLanguage: 'de' });
      assert.equal(formatLanguage(), 'de', 'a language Intl knows is kept');
    });

    it('goes back to English when configured again with an empty bundle', () => {
      configureL10n({ contents: { '{0} {1}': '{0} {1}', vehicles: 'Fahrzeuge' }, displayLanguage: 'de' });
      assert.equal(plural(2, 'vehicle'), '2 Fahrzeuge');
      configureL10n({ contents: {}, displayLanguage: 'en' });
      assert.equal(plural(2, 'vehicle'), '2 vehicles');
    });
  });

  it('reads the message of anything thrown', () => {
    assert.equal(errorMessage(new Error('boom')), 'boom');
    assert.equal(errorMessage('text'), 'text');
    assert.equal(errorMessage(42), '42');
    assert.equal(errorMessage(new MobilityError('USAGE', 'Say what to fix.')), 'Say what to fix.');
  });
});
