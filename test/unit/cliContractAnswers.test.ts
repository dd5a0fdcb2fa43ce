import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApiClient } from '../../src/core/http/apiClient';
import { freeRequest } from '../../src/core/mds/mdsRequests';
import { IssueClock } from '../../src/core/clock/issueClock';
import { TokenIssuer } from '../../src/core/auth/tokenIssuer';
import type { TestServer } from './support/testServer';
import { startTestServer } from './support/testServer';
import { makeTestCredential } from './support/testCredentials';
import { XSD, xmllint, xpath } from './support/junitSchema';
import { makeCliCredential, runCliInProcess } from './support/cliRunner';
import type { CliCredential } from './support/cliRunner';

// What `mobility-api test` reports of answers no sandbox gives: a server that never answers, one that sets two cookies.
describe('CLI: test against servers that never answer or set several cookies', function () {
  this.timeout(60_000);
  let dir: string;
  let credential: CliCredential;
  let server: TestServer;
  /** Requests the silent path received (and never answered). */
  let held = 0;
  const COOKIES = [
    'session=abc; Path=/; Expires=Wed, 21 Oct 2026 07:28:00 GMT; HttpOnly',
    'region=nl; Path=/; Max-Age=3600',
  ];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-contract-answers-'));
    credential = makeCliCredential();
    server = await startTestServer((req, res) => {
      // The silent path: the request is read, and nothing is ever sent back; close() ends the connection.
      if (req.url?.startsWith('/mds/silent')) {
        held++;
        return;
      }
      res.setHeader('Set-Cookie', COOKIES);
      res.setHeader('Content-Type', 'application/vnd.mds+json;version=2.0');
      res.end(JSON.stringify({ version: '2.0.0', vehicles: [], links: {} }));
    });
  });
  after(async () => {
    await server?.close();
    credential?.remove();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  };

  it('a request that timed out keeps the time it was waited for, in the line, --json and JUnit (not 0)', async function () {
    const file = write('silent.http', '# @name silent\nGET {{baseUrl}}/silent\n?? status == 200\n');
    const report = path.join(dir, 'silent.xml');
    const base = ['test', file, '--base-url', `${server.url}/mds`, ...credential.flags, '--timeout', '0.4'];
    const text = await runCliInProcess([...base, '--junit', report]);
    assert.equal(text.code, 1, text.out + text.err);
    assert.ok(held >= 1, 'the server received the request');
    const line = /^FAIL {2}silent {2}\(.*silent\.http:2\) {2}no answer {2}(\d+) ms$/m.exec(text.out);
    assert.ok(line, text.out);
    assert.ok(Number(line[1]) >= 400, `the line says ${line[1]} ms, at least the 0.4 s timeout`);
    assert.match(text.out, /timed out|timeout/i);

    assert.equal(
      xmllint(this, ['--noout', '--schema', XSD, report]).status,
      0,
      'the report validates against the Jenkins JUnit schema',
    );
    assert.equal(xpath(this, report, 'count(//testcase[@name="silent"]/error)'), '1');
    const time = Number(xpath(this, report, 'string(//testcase[@name="silent"]/@time)'));
    assert.ok(time >= 0.4, `JUnit's time is ${time} s, at least the 0.4 s timeout`);

    const json = await runCliInProcess([...base, '--json']);
    assert.equal(json.code, 1, json.out + json.err);
    const run = (JSON.parse(json.out) as { requests: { label: string; durationMs: number; error?: string }[] })
      .requests[0];
    assert.equal(run.label, 'silent');
    assert.match(run.error ?? '', /timed out|timeout/i);
    assert.ok(run.durationMs >= 400, `--json says ${run.durationMs} ms, at least the 0.4 s timeout`);
  });

  it('every Set-Cookie header of an answer is readable: ?? header assertions see each, and so does the response', async () => {
    const file = write(
      'cookies.http',
      [
        '# @name cookies',
        'GET {{baseUrl}}/vehicles',
        '?? status == 200',
        '?? header set-cookie includes session=abc',
        '?? header set-cookie includes region=nl',
        '?? header set-cookie includes Expires=Wed, 21 Oct 2026 07:28:00 GMT',
        '',
      ].join('\n'),
    );
    const r = await runCliInProcess(['test', file, '--base-url', `${server.url}/mds`, ...credential.flags, '--json']);
    assert.equal(r.code, 0, r.out + r.err);
    const run = (JSON.parse(r.out) as { requests: { outcomes: { text: string; passed: boolean }[] }[] }).requests[0];
    assert.deepEqual(
      run.outcomes.map((o) => o.passed),
      [true, true, true, true],
    );

    const failing = await runCliInProcess([
      'test',
      write('cookie-missing.http', 'GET {{baseUrl}}/vehicles\n?? header set-cookie includes theme=dark\n'),
      '--base-url',
      `${server.url}/mds`,
      ...credential.flags,
    ]);
    assert.equal(failing.code, 1, 'a cookie that was not set is not found');
    assert.match(failing.out, /session=abc.*region=nl|region=nl.*session=abc/, 'the failure shows both cookies');

    // The response object the results panel, history and `send` show: each cookie whole, on a line of its own.
    const client = new ApiClient({ issuer: new TokenIssuer({ clock: new IssueClock({ precision: 'milliseconds' }) }) });
    const result = await client.request(
      { id: 't', name: 'Test', api: 'mds', stage: 'staging', baseUrl: `${server.url}/mds` },
      makeTestCredential(),
      freeRequest('mds', '/vehicles'),
    );
    assert.deepEqual(result.pages[0].responseHeaders['set-cookie'].split('\n'), COOKIES);
  });
});
