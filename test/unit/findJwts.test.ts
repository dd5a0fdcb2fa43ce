import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { keyFixture } from './keyFixtures';
import { findJwtAt, findJwts, HOVER_WINDOW_CHARS } from '../../src/core/auth/findJwts';

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('findJwtAt and findJwts', () => {
  let jwt: string;
  let jwt2: string;

  before(async () => {
    const { privateKey } = keyFixture('p256');
    const sign = (iss: string): Promise<string> =>
      new SignJWT({ jti: randomUUID() })
        .setProtectedHeader({ alg: 'ES256', kid: 'kid-1' })
        .setIssuer(iss)
        .setAudience('https://mds.example.test')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
    jwt = await sign('org-1@ext.example');
    jwt2 = await sign('org-2@ext.example');
  });

  /** Finds the token at every position inside it, and at the position just after it. */
  function assertFoundIn(line: string): void {
    const start = line.indexOf(jwt);
    assert.ok(start >= 0);
    for (const at of [start, start + 10, start + jwt.indexOf('.'), start + jwt.length - 1, start + jwt.length]) {
      assert.deepEqual(
        findJwtAt(line, at),
        { start, end: start + jwt.length, token: jwt },
        `${JSON.stringify(line.slice(0, 30))} at ${at}`,
      );
    }
    assert.deepEqual(findJwts(line), [{ start, end: start + jwt.length }]);
  }

  it('finds a token in the places people keep them', () => {
    assertFoundIn(jwt);
    assertFoundIn(`Authorization: Bearer ${jwt}`);
    assertFoundIn(`curl -H "Authorization: Bearer ${jwt}" https://mds.example.test/vehicles`);
    assertFoundIn(`MDS_TOKEN=${jwt}`);
    assertFoundIn(`  "token": "${jwt}",`);
    assertFoundIn(`const t = '${jwt}';`);
    assertFoundIn(`2025-06-01T12:00:00Z INFO request sent token=${jwt} status=200`);
    assertFoundIn(`See the token ${jwt}.`);
    assertFoundIn(`https://app.example/cb?access_token=${jwt}&state=1`);
  });

  it('returns undefined when the position is not on a token', () => {
    const line = `token: "${jwt}" ok`;
    assert.equal(findJwtAt(line, 0), undefined);
    assert.equal(findJwtAt(line, line.indexOf('"')), undefined);
    assert.equal(findJwtAt(line, line.length - 1), undefined);
    assert.equal(findJwtAt(line, line.length), undefined);
    assert.equal(findJwtAt(line, -1), undefined);
    assert.equal(findJwtAt(line, line.length + 5), undefined);
    assert.equal(findJwtAt('', 0), undefined);
    assert.equal(findJwtAt('version 1.2.3 of eyJfoo', 10), undefined);
  });

  it('does not count the position after a dot that follows a token as on the token', () => {
    // "See the token <jwt>. Next": the cursor after the full stop is past the token, not just after it.
    const line = `See the token ${jwt}. Next`;
    const afterDot = line.indexOf(jwt) + jwt.length + 1;
    assert.equal(findJwtAt(line, afterDot), undefined);
    assert.equal(findJwtAt(`${jwt}.`, jwt.length + 1), undefined, 'a dot at the end of the line');
    assert.deepEqual(
      findJwtAt(`${jwt}.`, jwt.length),
      { start: 0, end: jwt.length, token: jwt },
      'on the dot itself it still counts',
    );
  });

  it('does not report eyJ-shaped garbage that does not decode', () => {
    for (const text of [
      'eyJ.eyJ.x',
      'eyJhbGciOiJFUzI1NiJ9xx.eyJhbGciOi.sig',
      `${jwt.split('.')[0]}.e30`,
      `${jwt.slice(0, -1).split('.')[0]}.ey!!.abc`,
      'eyJzzzzzzzzzzzzzzzzz.eyJzz.sig',
    ]) {
      assert.deepEqual(findJwts(text), [], text);
      assert.equal(findJwtAt(text, 2), undefined, text);
    }
  });

  it('finds an unsigned token and one with an empty JSON payload', () => {
    const unsigned = `${b64({ alg: 'none' })}.${b64({ sub: 'x' })}.`;
    assert.deepEqual(findJwtAt(`t=${unsigned} next`, 5), { start: 2, end: 2 + unsigned.length, token: unsigned });
    const empty = `${b64({ alg: 'ES256', kid: 'k' })}.${b64({})}.c2ln`;
    assert.equal(findJwtAt(`"${empty}"`, 3)?.token, empty);
  });

  it('picks the right token where tokens touch through dots', () => {
    const line = `${jwt}.${jwt2}`;
    assert.equal(findJwtAt(line, 3)?.token, jwt);
    assert.equal(findJwtAt(line, jwt.length + 3)?.token, jwt2);
    assert.deepEqual(findJwts(line), [
      { start: 0, end: jwt.length },
      { start: jwt.length + 1, end: 2 * jwt.length + 1 },
    ]);
    const prefixed = `v1.2.${jwt}`;
    assert.equal(findJwtAt(prefixed, 8)?.token, jwt);
  });

  it('findJwts scans a whole log in order and stops at the limit', () => {
    const log = Array.from({ length: 150 }, (_, i) => `line ${i} Bearer ${i % 2 ? jwt : jwt2} done`).join('\n');
    const all = findJwts(log, 1000);
    assert.equal(all.length, 150);
    assert.ok(all.every((r, i) => log.slice(r.start, r.end) === (i % 2 ? jwt : jwt2)));
    assert.ok(all.every((r, i) => i === 0 || r.start > all[i - 1].end));
    assert.equal(findJwts(log).length, 100, 'default limit');
    assert.equal(findJwts(log, 3).length, 3);
    assert.deepEqual(findJwts(log, 0), []);
    assert.deepEqual(findJwts(''), []);
  });

  // Bounded, not timed: findJwtAt reads a window around the position whatever the line's length (10 MB lines here),
  // and findJwts one pass over the text. A scan that went back over what it read would take hours over 1 MB of these
  // shapes: the timeout, far above the second they take on a loaded machine, is what fails it.
  it('stays bounded on 10 MB lines without tokens', () => {
    const MB = 1024 * 1024;
    const as = 'a'.repeat(10 * MB);
    assert.equal(findJwtAt(as, 5_000_000), undefined);
    assert.equal(findJwtAt(as, 0), undefined);
    assert.deepEqual(findJwts(as.slice(0, MB)), []);

    const eyJs = 'eyJ'.repeat(3_500_000);
    assert.equal(findJwtAt(eyJs, 5_000_000), undefined);
    assert.deepEqual(findJwts(eyJs.slice(0, MB)), []);

    const dotted = 'eyJ.'.repeat(2_600_000);
    assert.equal(findJwtAt(dotted, 5_000_000), undefined);
    assert.deepEqual(findJwts(dotted.slice(0, MB)), []);

    const spaced = 'a '.repeat(MB / 2);
    assert.deepEqual(findJwts(spaced), []);
  }).timeout(120_000);

  it('finds a token in the middle of a 10 MB line, within the window', () => {
    const half = 'x '.repeat(2_500_000);
    const line = `${half}"${jwt}"${half}`;
    const start = half.length + 1;
    assert.deepEqual(findJwtAt(line, start + 20), { start, end: start + jwt.length, token: jwt });
    assert.deepEqual(findJwts(line), [{ start, end: start + jwt.length }]);
  });

  it('does not report a token cut by the window edge on a long run', () => {
    // A token glued to a run longer than the window: the window holds only part of the run.
    const glued = `${'a'.repeat(HOVER_WINDOW_CHARS * 2)}${jwt}`;
    assert.equal(findJwtAt(glued, glued.length - 5), undefined);
    // The same token after a delimiter is found, however long the line before it.
    const separated = `${'a'.repeat(HOVER_WINDOW_CHARS * 2)} ${jwt}`;
    assert.equal(findJwtAt(separated, separated.length - 5)?.token, jwt);
  });
});

describe('findJwts with text glued to the token', () => {
  it('finds a token after a URL-encoded space or an escaped newline', async () => {
    const token = await new SignJWT({ iss: 'a@b.invalid' })
      .setProtectedHeader({ alg: 'ES256', kid: 'k' })
      .sign(keyFixture('p256').privateKey);
    for (const prefix of ['Authorization: Bearer%20', 'log line\\n', 'x=1&token=20']) {
      const text = `${prefix}${token} tail`;
      const found = findJwts(text);
      assert.equal(found.length, 1, prefix);
      assert.equal(text.slice(found[0].start, found[0].end), token, prefix);
      const at = findJwtAt(text, prefix.length + 5);
      assert.equal(at?.token, token, prefix);
    }
  });
});
