import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import { distinctKeyPair, keyFixture } from './keyFixtures';
import { decodeJwt, MAX_TOKEN_CHARS, stripTokenText } from '../../src/core/auth/decodeJwt';
import type { DecodeFailureCode, DecodedToken, DecodeResult } from '../../src/core/auth/decodeJwt';
import {
  describeExpiry,
  describeIssued,
  describeNotBefore,
  describeRelative,
  formatDuration,
} from '../../src/core/base/relativeTime';
import { verifyTokenSignature } from '../../src/core/auth/verifySignature';

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const NOW_S = NOW / 1000;

const b64 = (value: unknown): string =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const HEADER = b64({ alg: 'ES256', kid: 'k1' });
const PAYLOAD = b64({ iss: 'org@ext.example', iat: NOW_S - 120, exp: NOW_S + 240 });

function decoded(text: string): DecodedToken {
  const r = decodeJwt(text, { now: NOW });
  assert.ok(r.ok, `expected ${JSON.stringify(text.slice(0, 60))} to decode, got: ${r.ok ? '' : r.reason}`);
  return r.token;
}

function refused(text: string, code: DecodeFailureCode): Extract<DecodeResult, { ok: false }> {
  const r = decodeJwt(text, { now: NOW });
  const shown = JSON.stringify(String(text).slice(0, 60));
  assert.equal(r.ok, false, `expected ${shown} to be refused`);
  if (r.ok) throw new Error('unreachable');
  assert.equal(r.code, code, `code for ${shown}: ${r.reason}`);
  assert.ok(r.reason.length > 10 && r.reason.length < 400, 'a short plain-words reason');
  return r;
}

describe('relative time wording', () => {
  it('describes spans in seconds, minutes, hours and days with a fixed now', () => {
    assert.equal(describeRelative(NOW + 4 * 60_000, NOW), 'in 4 min');
    assert.equal(describeRelative(NOW - 3 * 60_000 - 59_000, NOW), '3 min ago', 'truncated, never rounded up');
    assert.equal(describeRelative(NOW + (2 * 3600 + 5 * 60) * 1000, NOW), 'in 2 h 5 min');
    assert.equal(describeRelative(NOW + 2 * 3600 * 1000, NOW), 'in 2 h');
    assert.equal(describeRelative(NOW + 42_000, NOW), 'in 42 s');
    assert.equal(describeRelative(NOW - 42_000, NOW), '42 s ago');
    assert.equal(describeRelative(NOW + 400, NOW), 'just now');
    assert.equal(describeRelative(NOW, NOW), 'just now');
    assert.equal(describeRelative(NOW - (3 * 86400 + 4 * 3600) * 1000, NOW), '3 d 4 h ago');
    assert.equal(describeRelative(NOW + 800 * 86400 * 1000, NOW), 'in 800 d');
    assert.equal(formatDuration(Infinity), 'an unbounded time');
  });
  it("words exp, iat and nbf from the reader's point of view", () => {
    assert.equal(describeExpiry(NOW + 4 * 60_000, NOW), 'expires in 4 min');
    assert.equal(describeExpiry(NOW - 3 * 60_000, NOW), 'expired 3 min ago');
    assert.equal(describeExpiry(NOW, NOW), 'expired just now', 'exp equal to now is already expired');
    assert.equal(describeIssued(NOW - 2 * 60_000, NOW), 'issued 2 min ago');
    assert.equal(describeIssued(NOW + 10_000, NOW), 'issued in 10 s');
    assert.equal(describeNotBefore(NOW + 2 * 60_000, NOW), 'becomes valid in 2 min');
    assert.equal(describeNotBefore(NOW - 2 * 60_000, NOW), 'valid since 2 min ago');
  });
});

describe('decodeJwt', () => {
  it('decodes header, payload, times and lifetime of a well-formed token', () => {
    const t = decoded(`${HEADER}.${PAYLOAD}.c2ln`);
    assert.deepEqual(t.header, { alg: 'ES256', kid: 'k1' });
    assert.equal(t.payload.iss, 'org@ext.example');
    assert.equal(t.signaturePresent, true);
    assert.deepEqual(t.times.exp, {
      seconds: NOW_S + 240,
      iso: '2025-06-01T12:04:00.000Z',
      relative: 'expires in 4 min',
    });
    assert.deepEqual(t.times.iat, {
      seconds: NOW_S - 120,
      iso: '2025-06-01T11:58:00.000Z',
      relative: 'issued 2 min ago',
    });
    assert.equal(t.times.nbf, undefined);
    assert.equal(t.lifetimeSeconds, 360);
  });

  it('does not keep the token text anywhere in the decoded view', () => {
    const text = `${HEADER}.${PAYLOAD}.c2lnbmF0dXJlLWJ5dGVz`;
    const t = decoded(text);
    const json = JSON.stringify(t);
    assert.ok(!json.includes(HEADER) && !json.includes(PAYLOAD) && !json.includes('c2lnbmF0dXJlLWJ5dGVz'));
  });

  it('strips whitespace, Bearer, Authorization: Bearer and quotes around the token', () => {
    const token = `${HEADER}.${PAYLOAD}.c2ln`;
    for (const text of [
      `  ${token}\n`,
      `Bearer ${token}`,
      `bearer\t${token}`,
      `BEARER ${token}`,
      `Authorization: Bearer ${token}`,
      `authorization:bearer ${token}`,
      `"${token}"`,
      `'${token}'`,
      `"Bearer ${token}"`,
      `Bearer "${token}"`,
      `\uFEFF ${token} \u00A0`,
    ]) {
      assert.equal(stripTokenText(text), token, JSON.stringify(text));
      assert.equal(decoded(text).payload.iss, 'org@ext.example');
    }
  });

  it('keeps a time claim that is not a number out of times but still decodes', () => {
    const t = decoded(`${HEADER}.${b64(`{"exp":"soon","iat":1e400,"nbf":${NOW_S + 120}}`)}.`);
    assert.equal(t.times.exp, undefined);
    assert.equal(t.times.iat, undefined, '1e400 parses as Infinity, which is not a time');
    assert.equal(t.times.nbf?.relative, 'becomes valid in 2 min');
    assert.equal(t.lifetimeSeconds, undefined);
    assert.equal(t.signaturePresent, false);
  });

  it('keeps what the token writes where JSON.parse cannot hold it ("exp": 1e400), and names member names written twice', () => {
    const t = decoded(
      `${b64('{"alg":"HS256","alg":"ES256","kid":"k1"}')}.${b64('{"exp":1e400,"iat":-1E+999,"big":12345678901234567890,"n":{"a":1,"a":2,"a":3},"l":[{"x":1,"x":2}],"ok":1.5}')}.`,
    );
    assert.equal(t.header.alg, 'ES256', 'the last value, as JSON.parse and RFC 7515 section 4 read it');
    assert.deepEqual(t.duplicateMembers, [
      { part: 'header', path: ['alg'], count: 2 },
      { part: 'payload', path: ['n', 'a'], count: 3 },
      { part: 'payload', path: ['l', 0, 'x'], count: 2 },
    ]);
    assert.deepEqual(t.writtenNumbers, [
      { part: 'payload', path: ['exp'], text: '1e400' },
      { part: 'payload', path: ['iat'], text: '-1E+999' },
      { part: 'payload', path: ['big'], text: '12345678901234567890' },
    ]);
    assert.equal(t.times.exp, undefined);
    assert.equal(decoded(`${HEADER}.${PAYLOAD}.sig`).duplicateMembers, undefined, 'an ordinary token has none');
  });

  it('shows a time a Date cannot hold as out of range instead of failing', () => {
    const t = decoded(`${HEADER}.${b64({ exp: 1e300, iat: -1e20 })}.eA`);
    assert.equal(t.times.exp?.iso, 'out of range');
    assert.equal(t.times.iat?.iso, 'out of range');
    assert.match(t.times.exp?.relative ?? '', /^expires in \S+ d$/);
  });

  describe('refuses what is not a JWS, saying what is wrong', () => {
    it('empty, whitespace and Bearer-only text', () => {
      refused('', 'empty');
      refused(' \n\t ', 'empty');
      assert.match(refused('Bearer', 'empty').reason, /only "Bearer"/);
      assert.match(refused('Authorization: Bearer   ', 'empty').reason, /no token/);
      refused('""', 'empty');
      refused(undefined as unknown as string, 'not-text');
    });
    it('the wrong number of parts, saying how many were found', () => {
      assert.match(refused('abc', 'part-count').reason, /one part/);
      assert.match(refused(`${HEADER}.${PAYLOAD}`, 'part-count').reason, /found 2 parts/);
      assert.match(refused(`${HEADER}.${PAYLOAD}.a.b`, 'part-count').reason, /found 4 parts/);
      assert.match(refused('.'.repeat(100_000), 'part-count').reason, /found 100,001 parts/);
    });
    it('a five-part JWE as not supported', () => {
      assert.match(
        refused(`${b64({ alg: 'RSA-OAEP', enc: 'A256GCM' })}.a.b.c.d`, 'jwe-not-supported').reason,
        /encrypted/,
      );
    });
    it('an empty header or payload part', () => {
      assert.equal(refused(`.${PAYLOAD}.sig`, 'empty-part').part, 'header');
      assert.equal(refused(`${HEADER}..sig`, 'empty-part').part, 'payload');
    });
    it('bad base64url in each part, naming the part', () => {
      const cases: Array<[string, 'header' | 'payload' | 'signature', RegExp]> = [
        [`${HEADER}+.${PAYLOAD}.sig`, 'header', /standard base64/],
        [`${HEADER}.${PAYLOAD}/x.sig`, 'payload', /standard base64/],
        [`${HEADER}.${PAYLOAD}.si=g`, 'signature', /"=" at position 3/],
        [`${HEADER}.${PAYLOAD}.si g`, 'signature', /a space at position 3/],
        [`${HEADER}.pay\u0000load.sig`, 'payload', /control character \(U\+0000\)/],
        [`${HEADER}.${PAYLOAD}.s\uD800ig`, 'signature', /non-ASCII/],
        [`é${HEADER}.${PAYLOAD}.sig`, 'header', /"é" at position 1/],
        [`${HEADER}.${PAYLOAD}.abcde`, 'signature', /length \(5\)/],
      ];
      for (const [text, part, reason] of cases) {
        const r = refused(text, 'not-base64url');
        assert.equal(r.part, part, text);
        assert.match(r.reason, new RegExp(`^The ${part} part is not base64url`));
        assert.match(r.reason, reason);
      }
    });
    it('"=" padding at the end of a part: decoded so it can be read, with the padded parts named (RFC 7515 section 2 leaves it out)', () => {
      const padded = (part: string) => part + '='.repeat((4 - (part.length % 4)) % 4);
      const header = padded(b64({ alg: 'ES256', kid: 'k1' }));
      assert.ok(header.endsWith('='), 'the test header needs padding');
      const token = decoded(`${header}.${PAYLOAD}.sig=`);
      assert.equal(token.header.kid, 'k1');
      assert.deepEqual(token.paddedParts, ['header', 'signature']);
      assert.equal(decoded(`${HEADER}.${PAYLOAD}.sig`).paddedParts, undefined);
    });
    it('header or payload that is not JSON, or not UTF-8', () => {
      assert.equal(refused(`${b64('{"alg":')}.${PAYLOAD}.sig`, 'not-json').part, 'header');
      assert.equal(refused(`${HEADER}.${b64('not json')}.sig`, 'not-json').part, 'payload');
      assert.equal(
        refused(`${HEADER}.${Buffer.from([0xff, 0xfe, 0x7b]).toString('base64url')}.sig`, 'not-utf8').part,
        'payload',
      );
    });
    it('JSON that is not an object', () => {
      assert.match(refused(`${b64('null')}.${PAYLOAD}.sig`, 'not-object').reason, /header is JSON null/);
      assert.match(refused(`${HEADER}.${b64([1, 2])}.sig`, 'not-object').reason, /payload is JSON an array/);
      assert.match(refused(`${HEADER}.${b64('"text"')}.sig`, 'not-object').reason, /a string/);
      refused(`${HEADER}.${b64('42')}.sig`, 'not-object');
    });
    it('a header without a string alg', () => {
      assert.equal(refused(`${b64({ kid: 'k' })}.${PAYLOAD}.sig`, 'alg-missing').part, 'header');
      const reason = refused(`${b64({ alg: 256 })}.${PAYLOAD}.sig`, 'alg-missing').reason;
      assert.match(reason, /The header's "alg" is a number, not a string such as "ES256"\./);
      assert.doesNotMatch(reason, /\ba a\b/);
      assert.match(
        refused(`${b64({ alg: { name: 'ES256' } })}.${PAYLOAD}.sig`, 'alg-missing').reason,
        /"alg" is an object, not a string/,
      );
    });
    it('over-long text before doing any work', () => {
      const huge = 'a'.repeat(10 * 1024 * 1024);
      assert.match(refused(huge, 'too-large').reason, /10,485,760 characters/);
      const hugeToken = `${HEADER}.${b64({ pad: 'x'.repeat(MAX_TOKEN_CHARS) })}.sig`;
      refused(hugeToken, 'too-large');
      refused(' '.repeat(MAX_TOKEN_CHARS + 1), 'too-large');
    });
  });

  it('decodes a token just under the size limit', () => {
    const big = `${HEADER}.${b64({ pad: 'x'.repeat(700_000) })}.sig`;
    assert.ok(big.length < MAX_TOKEN_CHARS);
    assert.equal((decoded(big).payload.pad as string).length, 700_000);
  });

  it('keeps __proto__ keys as own data and never pollutes Object.prototype', () => {
    const protoBefore = Object.getOwnPropertyNames(Object.prototype).sort();
    const header = b64('{"alg":"ES256","__proto__":{"polluted":"header"}}');
    const payload = b64(
      '{"__proto__":{"polluted":"payload","exp":1},"constructor":{"prototype":{"polluted":"c"}},"iss":"a@b"}',
    );
    const t = decoded(`${header}.${payload}.sig`);
    assert.ok(Object.hasOwn(t.payload, '__proto__'));
    assert.ok(Object.hasOwn(t.header, '__proto__'));
    assert.equal(t.times.exp, undefined, "exp inside __proto__ is not the token's exp");
    assert.equal(Object.getPrototypeOf(t.payload), Object.prototype);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal((Object.prototype as Record<string, unknown>).polluted, undefined);
    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), protoBefore);
  });

  it('decodes unicode in claims', () => {
    const t = decoded(`${HEADER}.${b64({ name: 'Zoë 🚲 \u0000 ok', iss: 'ü@ß.example' })}.sig`);
    assert.equal(t.payload.name, 'Zoë 🚲 \u0000 ok');
    assert.equal(t.payload.iss, 'ü@ß.example');
  });

  it('gives a result, never an exception, for a corpus of odd strings', () => {
    const corpus = [
      '',
      ' ',
      '.',
      '..',
      '...',
      '....',
      '\u0000',
      '\u0000.\u0000.\u0000',
      '\uD800.\uDC00.x',
      'eyJ.eyJ.x',
      'eyJ.eyJ.',
      'Bearer Bearer',
      '"',
      "'",
      '``',
      '"unterminated',
      'Authorization:',
      `${HEADER}.${PAYLOAD}.${'\uD83D'}`,
      'null',
      '{}',
      '[]',
      `${b64('['.repeat(100_000))}.${PAYLOAD}.x`,
      `${HEADER}.${b64('{"a":' + '['.repeat(200_000) + ']'.repeat(200_000) + '}')}.x`,
      'eyJ'.repeat(3_000_000),
      `${'a.'.repeat(500_000)}`,
    ];
    for (const text of corpus) {
      const r = decodeJwt(text, { now: NOW });
      assert.equal(typeof r.ok, 'boolean');
      if (!r.ok) assert.ok(r.reason.length > 0);
    }
  });
});

describe('decodeJwt and verifyTokenSignature on tokens signed with jose', () => {
  let ec: { privateKey: KeyObject; publicKey: KeyObject };
  let otherEc: { privateKey: KeyObject; publicKey: KeyObject };
  let rsa: { privateKey: KeyObject; publicKey: KeyObject };
  let esToken: string;
  let rsToken: string;

  before(async () => {
    ec = keyFixture('p256');
    otherEc = distinctKeyPair('p256');
    rsa = keyFixture('rsa2048');
    esToken = await new SignJWT({ jti: randomUUID() })
      .setProtectedHeader({ alg: 'ES256', kid: 'kid-1' })
      .setIssuer('org-1@ext.example')
      .setAudience('https://mds.example.test')
      .setIssuedAt(NOW_S)
      .setExpirationTime(NOW_S + 300)
      .sign(ec.privateKey);
    rsToken = await new SignJWT({ jti: randomUUID(), sub: 'sa@sa.example', email: 'sa@sa.example' })
      .setProtectedHeader({ alg: 'RS256', kid: 'pkid' })
      .setIssuer('sa@sa.example')
      .setAudience('https://mds.example.test')
      .setIssuedAt(NOW_S)
      .setExpirationTime(NOW_S + 360)
      .sign(rsa.privateKey);
  });

  it('decodes ES256 and RS256 tokens', () => {
    const es = decoded(esToken);
    assert.deepEqual(es.header, { alg: 'ES256', kid: 'kid-1' });
    assert.equal(es.payload.aud, 'https://mds.example.test');
    assert.equal(es.lifetimeSeconds, 300);
    assert.equal(es.times.exp?.relative, 'expires in 5 min');
    const rs = decoded(`Bearer ${rsToken}`);
    assert.equal(rs.header.alg, 'RS256');
    assert.equal(rs.lifetimeSeconds, 360);
  });

  it('verifies a signature with the matching public key (or its private half)', async () => {
    assert.deepEqual(await verifyTokenSignature(esToken, ec.publicKey), { state: 'verified' });
    assert.deepEqual(await verifyTokenSignature(`Bearer ${esToken}`, ec.privateKey), { state: 'verified' });
    assert.deepEqual(await verifyTokenSignature(rsToken, rsa.publicKey), { state: 'verified' });
  });

  it('does not check claims: an expired token still has a valid signature', async () => {
    const old = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuedAt(1000)
      .setExpirationTime(1300)
      .sign(ec.privateKey);
    assert.deepEqual(await verifyTokenSignature(old, ec.publicKey), { state: 'verified' });
  });

  it('fails with a reason for another key, a tampered payload, a key of the wrong type and garbage', async () => {
    const other = await verifyTokenSignature(esToken, otherEc.publicKey);
    assert.equal(other.state, 'failed');
    assert.match(other.state === 'failed' ? other.reason : '', /signed with another key, or was changed/);

    const [h, , s] = esToken.split('.');
    const tampered = `${h}.${b64({ ...decoded(esToken).payload, aud: 'https://evil.example' })}.${s}`;
    const t = await verifyTokenSignature(tampered, ec.publicKey);
    assert.equal(t.state, 'failed');
    assert.match(t.state === 'failed' ? t.reason : '', /does not match/);

    const wrongType = await verifyTokenSignature(esToken, rsa.publicKey);
    assert.match(wrongType.state === 'failed' ? wrongType.reason : '', /"alg": "ES256", but the key is an RSA key/);

    for (const garbage of [
      '',
      'garbage',
      'eyJ.eyJ.x',
      `${h}.${b64({})}.`,
      'a'.repeat(10 * 1024 * 1024),
      `${h}.${esToken.split('.')[1]}.AAAA`,
    ]) {
      const r = await verifyTokenSignature(garbage, ec.publicKey);
      assert.equal(r.state, 'failed', garbage.slice(0, 40));
      assert.ok(r.state === 'failed' && r.reason.length > 0 && !r.reason.includes(esToken));
    }
  });

  it('refuses a token that names none or HS256 even if the key would fit', async () => {
    const none = `${b64({ alg: 'none' })}.${esToken.split('.')[1]}.`;
    assert.equal((await verifyTokenSignature(none, ec.publicKey)).state, 'failed');
    const hs = `${b64({ alg: 'HS256' })}.${esToken.split('.')[1]}.${esToken.split('.')[2]}`;
    const r = await verifyTokenSignature(hs, ec.publicKey);
    assert.match(r.state === 'failed' ? r.reason : '', /"alg": "HS256"/);
  });

  it('refuses an EC key on another curve', async () => {
    const p384 = keyFixture('p384');
    const r = await verifyTokenSignature(esToken, p384.publicKey);
    assert.match(r.state === 'failed' ? r.reason : '', /curve secp384r1/);
  });
});
