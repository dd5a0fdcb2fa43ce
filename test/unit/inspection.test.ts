import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { keyFixture } from './keyFixtures';
import { decodeJwt, MAX_TOKEN_CHARS } from '../../src/core/auth/decodeJwt';
import type { DecodedToken } from '../../src/core/auth/decodeJwt';
import { findJwtAt } from '../../src/core/auth/findJwts';
import { lintToken } from '../../src/core/auth/lintToken';
import type { IssuedToken } from '../../src/core/auth/tokenIssuer';
import { codeBlock, escapeMarkdown, hoverMarkdown } from '../../src/vscode/tokens/hoverMarkdown';
import { TokenHandles } from '../../src/vscode/tokens/tokenHandles';
import { tokenTextFromDebugValue, unescapeJs } from '../../src/vscode/tokens/variableValue';
import { TokenHistory } from '../../src/vscode/tokens/tokenHistory';
import { compareResultView, diffClaims } from '../../src/results/tokens/compareView';

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const NOW_S = NOW / 1000;
const MDS = 'https://mds.example.test/provider';
const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

function decoded(token: string): DecodedToken {
  const r = decodeJwt(token, { now: NOW });
  if (!r.ok) throw new Error(r.reason);
  return r.token;
}

function issued(token: string, environmentId: string, jti: string, iat: number): IssuedToken {
  return {
    token,
    header: { alg: 'ES256', kid: 'kid-1', typ: 'JWT' },
    claims: { iss: 'org-1@ext.example', aud: MDS, iat, exp: iat + 300, jti },
    environmentId,
  };
}

describe('token inspection', () => {
  let jwt: string;
  let expired: string;

  before(async () => {
    const { privateKey } = keyFixture('p256');
    const sign = (iat: number, exp: number): Promise<string> =>
      new SignJWT({ jti: randomUUID() })
        .setProtectedHeader({ alg: 'ES256', kid: 'kid-1' })
        .setIssuer('org-1@ext.example')
        .setAudience(MDS)
        .setIssuedAt(iat)
        .setExpirationTime(exp)
        .sign(privateKey);
    jwt = await sign(NOW_S - 10, NOW_S + 290);
    expired = await sign(NOW_S - 480, NOW_S - 180);
  });

  describe('the value of a debug variable', () => {
    it('takes the token out of quotes as debug adapters show strings', () => {
      for (const shown of [
        `'${jwt}'`,
        `"${jwt}"`,
        `\`${jwt}\``,
        `b'${jwt}'`,
        jwt,
        `  "${jwt}"  `,
        `'Bearer ${jwt}'`,
        `"Authorization: Bearer ${jwt}"`,
      ]) {
        const v = tokenTextFromDebugValue(shown);
        assert.equal(v.text, jwt, shown.slice(0, 20));
        assert.equal(v.truncated, false);
      }
    });

    it('undoes JS and JSON escapes, so an escaped token decodes', () => {
      const [h, p, s] = jwt.split('.');
      const escaped = `"${h}\\u002e${p}\\x2e${s}"`;
      assert.equal(tokenTextFromDebugValue(escaped).text, jwt);
      // A JSON string holding JSON: the quotes inside are escaped, the token is found inside it.
      const nested = JSON.stringify(JSON.stringify({ token: jwt }));
      const v = tokenTextFromDebugValue(nested);
      assert.equal(v.text, jwt);
      assert.equal(v.foundInside, true);
    });

    it('finds the one token in an object preview, and refuses to guess between two', () => {
      assert.deepEqual(tokenTextFromDebugValue(`{token: '${jwt}', status: 401}`), {
        text: jwt,
        truncated: false,
        foundInside: true,
      });
      const two = tokenTextFromDebugValue(`{a: '${jwt}', b: '${expired}'}`);
      assert.equal(decodeJwt(two.text).ok, false);
    });

    it('says when the adapter shortened the string', () => {
      const cut = tokenTextFromDebugValue(`'${jwt.slice(0, 60)}…`);
      assert.equal(cut.truncated, true);
      assert.equal(
        tokenTextFromDebugValue(`"${jwt.slice(0, 60)}..."`).truncated,
        false,
        'a closed string that ends in dots is whole',
      );
    });

    it('gives non-strings, empty values and huge values a result without throwing', () => {
      for (const value of [undefined, null, 42, {}, '', "''", '"', '\\', '"\\"', 'undefined']) {
        const v = tokenTextFromDebugValue(value);
        assert.equal(typeof v.text, 'string');
        assert.equal(decodeJwt(v.text).ok, false);
      }
      const huge = `'${'a'.repeat(10 * 1024 * 1024)}'`;
      const v = tokenTextFromDebugValue(huge);
      assert.equal(v.text.length > MAX_TOKEN_CHARS, true);
      const r = decodeJwt(v.text);
      assert.equal(r.ok, false);
      assert.equal(!r.ok && r.code, 'too-large');
    });

    it('unescapeJs handles every escape form and keeps malformed ones', () => {
      assert.equal(unescapeJs('a\\nb\\tc\\"d\\\'e\\\\f\\/g'), 'a\nb\tc"d\'e\\f/g');
      assert.equal(unescapeJs('\\u0041\\x42\\u{43}\\u{1F600}'), 'ABC😀');
      assert.equal(unescapeJs('\\u00zz\\xq\\u{110000}'), '\\u00zz\\xq\\u{110000}');
      assert.equal(unescapeJs('line\\\ncontinued'), 'linecontinued');
      assert.equal(unescapeJs('ends in \\'), 'ends in \\');
    });
  });

  describe('the hover text', () => {
    it('shows header, payload, times and findings with their spec rules', () => {
      const token = decoded(expired);
      const findings = lintToken(token, { now: NOW, knownAudiences: [MDS] });
      const md = hoverMarkdown({
        decoded: token,
        findings,
        openLink: 'command:mobilityApi.openDecodedToken?%5B%5D',
        formatLocal: (ms) => new Date(ms).toISOString(),
      });
      assert.match(md, /expired 3 min ago/);
      assert.match(md, /issued 8 min ago/);
      assert.match(md, new RegExp(escapeRegExp(escapeMarkdown(new Date((NOW_S - 180) * 1000).toISOString()))));
      assert.match(md, /Error: The token expired .* \(spec 5\\\.1 rule 5, expired\)/);
      assert.match(md, /\*\*Header\*\*\n```json\n\{\n {2}"alg": "ES256"/);
      assert.match(md, /"iss": "org-1@ext\.example"/);
      assert.match(md, /\[Open decoded view\]\(command:mobilityApi\.openDecodedToken\?%5B%5D\)/);
      assert.match(md, /Signature: not verified \(no stored credential has this kid\)/);
      assert.ok(!md.includes(expired), 'the hover text never holds the token');
    });

    it('says when the signature verified or failed', () => {
      const token = decoded(jwt);
      assert.match(
        hoverMarkdown({ decoded: token, findings: [], signature: { state: 'verified' } }),
        /Signature: verified with the stored credential whose kid matches/,
      );
      assert.match(
        hoverMarkdown({
          decoded: token,
          findings: [],
          signature: { state: 'failed', reason: 'The signature does not match.' },
        }),
        /Signature: does not verify: The signature does not match\\\./,
      );
      assert.match(hoverMarkdown({ decoded: token, findings: [] }), /No findings/);
    });

    it('cannot be made to show a link, HTML or a closed code block by claim values', () => {
      const hostile = {
        iss: '[click](command:workbench.action.terminal.new) <img src=x onerror=alert(1)> https://evil.example',
        note: '```\n[x](command:evil)\n````',
        kid: '*bold* `code` $(zap)',
      };
      const token = decoded(`${b64({ alg: 'ES256', kid: hostile.kid })}.${b64(hostile)}.c2ln`);
      const findings = lintToken(token, { now: NOW, knownAudiences: [MDS] });
      const md = hoverMarkdown({ decoded: token, findings });
      const outsideCode = md.replace(/(`{3,})json\n[\s\S]*?\n\1/g, '');
      assert.ok(!/\]\(/.test(outsideCode), 'no link outside code blocks');
      assert.ok(!/(^|[^\\])<img/.test(outsideCode), 'no unescaped HTML outside code blocks');
      assert.match(outsideCode, /\\<img/, 'the tag is shown as text');
      assert.match(outsideCode, /kid \\\*bold\\\* \\`code\\` \\\$\\\(zap\\\)/);
      // The payload holds a run of four backticks: its fence is five long, so it cannot be closed early.
      assert.match(md, /\*\*Payload\*\*\n`{5}json\n/);
    });

    it('escapes every ASCII punctuation mark and flattens line breaks', () => {
      assert.equal(escapeMarkdown('a_b*c[d](e)<f>&g#h|i\nj\u2028k'), 'a\\_b\\*c\\[d\\]\\(e\\)\\<f\\>\\&g\\#h\\|i j k');
      assert.equal(codeBlock('x ``` y'), '````json\nx ``` y\n````');
      assert.equal(codeBlock('plain'), '```json\nplain\n```');
    });

    it('cuts a huge payload in the hover and says so', () => {
      const token = decoded(`${b64({ alg: 'ES256' })}.${b64({ blob: 'x'.repeat(50_000) })}.c2ln`);
      const md = hoverMarkdown({ decoded: token, findings: [] });
      assert.ok(md.length < 10_000, `hover is ${md.length} characters`);
      assert.match(md, /more characters: open the decoded view/);
    });
  });

  describe('finding the token under the cursor in the places people debug', () => {
    it('finds it in .http, .env, JSON, escaped JSON logs and curl lines', () => {
      const lines = [
        `Authorization: Bearer ${jwt}`,
        `MDS_TOKEN="${jwt}"`,
        `{"headers":{"authorization":"Bearer ${jwt}"}}`,
        `{"msg":"sent","req":"{\\"token\\":\\"${jwt}\\"}"}`,
        `2025-06-01 12:00:00.123 [debug] Authorization=Bearer ${jwt}; status=401`,
        `curl -H 'Authorization: Bearer ${jwt}' ${MDS}/vehicles`,
        `token: ${jwt}.`,
      ];
      for (const line of lines) {
        const at = line.indexOf(jwt) + 5;
        assert.equal(findJwtAt(line, at)?.token, jwt, line.slice(0, 30));
      }
    });
  });

  describe('the token history', () => {
    it('lists tokens per environment, newest first, with jti, times and the request, and holds the text in memory only', () => {
      const history = new TokenHistory({ now: () => NOW });
      let changes = 0;
      history.onDidChange(() => changes++);
      const a = history.record(issued(jwt, 'mds-staging', 'jti-a', NOW_S), 'generated');
      const b = history.record(issued(expired, 'mds-staging', 'jti-b', NOW_S + 1), 'request', {
        url: `${MDS}/vehicles`,
        status: 401,
        statusText: 'Unauthorized',
      });
      history.record(issued(jwt, 'maas-staging', 'jti-c', NOW_S + 2), 'curl');
      assert.equal(changes, 3);
      assert.deepEqual(
        history.entries('mds-staging').map((e) => e.jti),
        ['jti-b', 'jti-a'],
      );
      assert.deepEqual(history.entry(b.id)?.request, {
        url: `${MDS}/vehicles`,
        status: 401,
        statusText: 'Unauthorized',
      });
      assert.equal(history.entry(a.id)?.exp, NOW_S + 300);
      assert.equal(history.tokenText(b.id), expired);
      assert.ok(!JSON.stringify(history.all()).includes(jwt), 'entries describe tokens without their text');
      history.clear();
      assert.equal(history.size, 0);
      assert.equal(history.tokenText(a.id), undefined);
    });

    it('keeps at most the configured number per environment, dropping the oldest with its text', () => {
      const history = new TokenHistory({ maxPerEnvironment: 3 });
      const entries = [1, 2, 3, 4, 5].map((n) => history.record(issued(jwt, 'env', `jti-${n}`, NOW_S + n), 'request'));
      assert.deepEqual(
        history.entries('env').map((e) => e.jti),
        ['jti-5', 'jti-4', 'jti-3'],
      );
      assert.equal(history.tokenText(entries[0].id), undefined);
      assert.equal(history.entry(entries[1].id), undefined);
    });

    it('keeps recording when a listener throws', () => {
      const history = new TokenHistory();
      history.onDidChange(() => {
        throw new Error('disposed tree');
      });
      assert.doesNotThrow(() => history.record(issued(jwt, 'env', 'j', NOW_S), 'generated'));
      assert.equal(history.size, 1);
    });
  });

  describe('token handles for hover links', () => {
    it('gives the same id to the same token and forgets the oldest beyond the limit', () => {
      const handles = new TokenHandles(2);
      const h1 = handles.handleFor('t1');
      assert.equal(handles.handleFor('t1'), h1);
      assert.doesNotMatch(h1, /t1/);
      handles.handleFor('t2');
      handles.handleFor('t1');
      handles.handleFor('t3');
      assert.equal(handles.tokenOf(h1), 't1', 'a token used again is kept');
      assert.equal(handles.size, 2);
      assert.equal(handles.tokenOf('not-a-handle'), undefined);
      assert.equal(handles.tokenOf(42), undefined);
    });
  });

  describe('comparing two tokens', () => {
    it('marks the claims that differ, with notes on those that decide acceptance', () => {
      const header = { alg: 'ES256', kid: 'kid-1' };
      const left = { iss: 'org-1@ext.example', aud: MDS, iat: NOW_S, exp: NOW_S + 300, jti: 'j1', extra: { a: 1 } };
      const right = {
        iss: 'org-1@ext.example',
        aud: [`${MDS}/`],
        iat: NOW_S,
        exp: NOW_S + 4000,
        jti: 'j1',
        scope: 'x',
      };
      const rows = diffClaims('payload', left, right);
      const state = Object.fromEntries(rows.map((r) => [r.name, r.state]));
      assert.deepEqual(state, {
        iss: 'same',
        aud: 'different',
        iat: 'same',
        exp: 'different',
        jti: 'same',
        extra: 'onlyLeft',
        scope: 'onlyRight',
      });
      assert.deepEqual(
        rows.map((r) => r.name),
        ['iss', 'aud', 'iat', 'exp', 'jti', 'extra', 'scope'],
        'spec claims first, then the rest by name',
      );
      assert.match(rows.find((r) => r.name === 'aud')?.note ?? '', /base URL .* \(5\.3\)/);
      assert.match(rows.find((r) => r.name === 'jti')?.note ?? '', /same jti/);
      assert.equal(rows.find((r) => r.name === 'extra')?.right, undefined);
      assert.equal(rows.find((r) => r.name === 'aud')?.right, JSON.stringify([`${MDS}/`]));
      assert.deepEqual(
        diffClaims('header', header, { ...header }).map((r) => r.state),
        ['same', 'same'],
      );
    });

    it('builds a view with both decoded tokens and no token text', () => {
      const a = decoded(jwt);
      const b = decoded(expired);
      const view = compareResultView({
        id: 'c1',
        left: { token: jwt, decoded: a, findings: lintToken(a, { now: NOW }), source: 'Generated' },
        right: { token: expired, decoded: b, findings: lintToken(b, { now: NOW }), source: 'Pasted' },
        now: NOW,
      });
      assert.equal(view.kind, 'compare');
      assert.ok(view.differences >= 3, `iat, exp and jti differ: ${view.differences}`);
      assert.ok(view.right.findings.some((f) => f.id === 'expired'));
      assert.match(view.summary.line, /Generated ↔ Pasted · \d+ claims differ/);
      const text = JSON.stringify(view);
      assert.ok(!text.includes(jwt) && !text.includes(expired), 'the view holds no token text');
    });
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
