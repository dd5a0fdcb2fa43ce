import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { MobilityError, isMobilityError } from '../../src/core/base/errors';

describe('MobilityError across bundles', () => {
  let dir: string;
  let other: typeof import('../../src/core/base/errors');

  before(() => {
    // A second copy of the class, built as esbuild builds dist/harvest.js next to dist/extension.js.
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'errors-bundle-'));
    const outfile = path.join(dir, 'errors.js');
    buildSync({
      entryPoints: [path.resolve('src/core/base/errors.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      outfile,
      logLevel: 'error',
    });
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    other = require(outfile) as typeof import('../../src/core/base/errors');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("is recognised when another bundle built it, so the harvest engine retries on the window client's errors", () => {
    assert.notEqual(other.MobilityError, MobilityError, 'the two copies are distinct classes');
    const err = new other.MobilityError('HTTP_TIMEOUT', 'timed out');
    assert.ok(err instanceof MobilityError);
    assert.ok(isMobilityError(err));
    assert.ok(new MobilityError('HTTP_DNS', 'x') instanceof other.MobilityError);
    assert.equal(err.code, 'HTTP_TIMEOUT');
  });

  it('is not claimed by other errors, even ones with a code', () => {
    const lookalike = Object.assign(new Error('x'), { code: 'HTTP_TIMEOUT', name: 'MobilityError' });
    for (const value of [lookalike, new Error('x'), 'HTTP_TIMEOUT', null, undefined, { code: 'HTTP_TIMEOUT' }]) {
      assert.equal(value instanceof MobilityError, false, JSON.stringify(value) ?? 'undefined');
      assert.equal(isMobilityError(value), false);
    }
  });
});
