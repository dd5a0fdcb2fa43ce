// One name for one environment (issue #24): the provider's and the sandbox's environments never share a
// name, and the README, the docs and the demo workspace `npm start` writes use exactly these names.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import {
  allEnvironmentNames,
  sandboxEnvironmentName,
  specEnvironmentName,
} from '../../src/results/requests/environmentNames';

/** Every environment name a text mentions: "MDS staging", "Sandbox · MaaS staging", and the old "MDS Provider · staging" forms. */
function namesIn(text: string): string[] {
  return [...text.matchAll(/(?:Sandbox · )?(?:MDS Provider · |MaaS · |MDS |MaaS )(?:staging|production)/g)].map(
    (m) => m[0],
  );
}

describe('environment names (issue #24)', () => {
  it("gives the provider's and the sandbox's environments different names, the sandbox's saying \"Sandbox\"", () => {
    const names = allEnvironmentNames();
    assert.equal(new Set(names).size, names.length, names.join(' | '));
    assert.equal(specEnvironmentName('mds-staging'), 'MDS staging');
    assert.equal(sandboxEnvironmentName('mds-staging'), 'Sandbox · MDS staging');
    assert.equal(sandboxEnvironmentName('maas-staging'), 'Sandbox · MaaS staging');
  });

  const docs = fs
    .readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  for (const file of ['README.md', ...docs, 'scripts/start.mjs', 'CHANGELOG.md']) {
    it(`${file} names environments as the extension does`, function () {
      if (!fs.existsSync(file)) this.skip();
      const text = fs.readFileSync(file, 'utf8');
      // Lines that tell the history of a name (CHANGELOG) may quote the old one.
      const current = text
        .split('\n')
        .filter((line) => !/\bw(?:as|ere) called\b|renamed|instead of/i.test(line))
        .join('\n');
      const known = new Set(allEnvironmentNames());
      const unknown = namesIn(current).filter((name) => !known.has(name));
      assert.deepEqual(unknown, [], `${file} uses names the extension does not show`);
    });
  }
});
