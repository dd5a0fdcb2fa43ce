import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestServer } from './support/testServer';
import { startTestServer } from './support/testServer';
import { makeCliCredential, runCliInProcess } from './support/cliRunner';
import type { CliCredential } from './support/cliRunner';

// `send` runs no user script: what a script of the file would do (set a header, a variable, a test) is refused at its
// line, as `test` refuses it, never skipped in silence.
describe('CLI: send refuses the script blocks of a request file at their line', function () {
  this.timeout(30_000);
  let dir: string;
  let credential: CliCredential;
  let server: TestServer;
  let received = 0;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-send-scripts-'));
    credential = makeCliCredential();
    server = await startTestServer((_req, res) => {
      received++;
      res.setHeader('Content-Type', 'application/vnd.mds+json;version=2.0');
      res.end(JSON.stringify({ version: '2.0.0', vehicles: [], links: {} }));
    });
  });
  after(async () => {
    await server?.close();
    credential?.remove();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const send = (name: string, text: string, ...extra: string[]) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return runCliInProcess([
      'send',
      file,
      '--base-url',
      `${server.url}/mds`,
      '--api',
      'mds',
      ...credential.flags,
      '--json',
      ...extra,
    ]);
  };

  it("a request's script block, a JetBrains handler and a global script: exit 2 at file:line:col, nothing sent", async () => {
    const before = received;
    const block = await send('block.http', 'GET {{baseUrl}}/vehicles\n\n{{\n  request.headers["x-trace"] = "1";\n}}\n');
    assert.equal(block.code, 2, block.out + block.err);
    assert.match(
      block.err,
      /block\.http:3:1: httpYac's script blocks \(\{\{ … \}\}, with test\(…\) or expect\(…\)\) are not supported here/,
    );
    assert.match(block.err, /Nothing was sent/);

    const handler = await send(
      'handler.http',
      '# @name one\nGET {{baseUrl}}/vehicles\n\n> {%\n  client.test("ok", () => {});\n%}\n',
      '--request',
      'one',
    );
    assert.equal(handler.code, 2, handler.out + handler.err);
    assert.match(
      handler.err,
      /handler\.http:4:1: JetBrains' handler scripts \(> \{% … %\}, with client\.test\(…\)\) are not supported here/,
    );

    const global = await send('global.http', '{{\n  exports.region = "nl";\n}}\n###\nGET {{baseUrl}}/vehicles\n');
    assert.equal(global.code, 2, global.out + global.err);
    assert.match(global.err, /global\.http:1:1: httpYac's script blocks/);

    const loop = await send('loop.http', '# @loop for 3\nGET {{baseUrl}}/vehicles\n');
    assert.equal(loop.code, 2, loop.out + loop.err);
    assert.match(loop.err, /loop\.http:1:3: "# @loop" is not supported here/);
    assert.equal(received, before, 'nothing was sent');
  });

  it('sends what it can send whole: another request of the file, assertions left to test, a {{variable}} line', async () => {
    const before = received;
    const file =
      '# @name clean\nGET {{baseUrl}}/vehicles\n?? status == 200\n\n###\n# @name scripted\nGET {{baseUrl}}/vehicles\n\n{{\n  console.log(response);\n}}\n';
    const clean = await send('two.http', file, '--request', 'clean');
    assert.equal(clean.code, 0, clean.out + clean.err);
    assert.equal(received, before + 1);
    const scripted = await send('two.http', file, '--request', 'scripted');
    assert.equal(scripted.code, 2);
    assert.match(scripted.err, /two\.http:9:1: httpYac's script blocks/);
    assert.equal(received, before + 1);
  });
});
