import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { RunningSandbox, SandboxRequestLog } from '../../src/sandbox/sandboxServer';
import { XSD, xmllint, xpath } from './support/junitSchema';
import { makeCliCredential, runCliInProcess, spawnBuiltCli } from './support/cliRunner';

const PASSING = `@size = 5

# @name vehicles
GET {{baseUrl}}/vehicles?page_size={{size}}

?? status == 200
?? header content-type includes json
?? body vehicles.length == {{size}}
?? body vehicles[0].device_id isString
?? duration < 30000
?? mds items > 0
?? mds conformance
?? token accepted

###
# @name every-page
GET {{baseUrl}}/vehicles?page_size=50
?? mds pages
?? mds conformance

###
# @name unasserted
GET {{baseUrl}}/vehicles/status
`;

const FAILING = `# @name wrong-status
GET {{baseUrl}}/vehicles?page_size=3

?? status == 201
?? body vehicles[0].speed > 1

###
# @name fine
GET {{baseUrl}}/stops
?? status == 200
`;

describe('CLI: test (contract tests of request files against the sandbox)', function () {
  this.timeout(60_000);
  let sandbox: RunningSandbox;
  let dir: string;
  const seen: SandboxRequestLog[] = [];
  const mds = () => sandbox.environments.find((e) => e.id === 'mds-staging')!.baseUrl;
  const flags = () => [
    '--base-url',
    mds(),
    '--credential',
    sandbox.demo.credentialFile,
    '--state-dir',
    path.join(dir, 'state'),
    '--precision',
    'milliseconds',
  ];
  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    return file;
  };

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-contract-'));
    sandbox = await startSandbox({
      fleetSize: 120,
      pageSize: 50,
      demoDir: path.join(dir, 'demo'),
      onRequest: (entry) => seen.push(entry),
    });
  });
  after(async () => {
    await sandbox?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs every request with assertions in file order, a fresh token each, and says N passed, M failed (exit 0)', async function () {
    const file = write('passing/mds.http', PASSING);
    const report = path.join(dir, 'reports/passing.xml');
    const before = seen.length;
    const r = await runCliInProcess(['test', file, ...flags(), '--junit', report]);
    assert.equal(r.code, 0, r.err + r.out);
    const lines = r.out.trim().split('\n');
    assert.match(lines[0], /^PASS {2}vehicles {2}\(.*mds\.http:4\) {2}200 OK {2}\d+ ms {2}8 assertions passed$/);
    assert.match(
      lines[1],
      /^PASS {2}every-page {2}\(.*mds\.http:17\) {2}200 OK · 3 pages {2}\d+ ms {2}2 assertions passed$/,
    );
    assert.equal(lines[lines.length - 1], '2 passed, 0 failed');
    assert.doesNotMatch(r.out, /unasserted/, 'a request without assertions is not run');
    // 1 + 3 pages, each with its own token.
    const sent = seen.slice(before);
    assert.equal(sent.length, 4);
    assert.ok(sent.every((e) => e.status === 200));

    assert.equal(
      xmllint(this, ['--noout', '--schema', XSD, report]).status,
      0,
      'the report validates against the Jenkins JUnit schema',
    );
    assert.equal(xpath(this, report, 'string(/testsuites/@tests)'), '2');
    assert.equal(xpath(this, report, 'string(/testsuites/testsuite/@name)'), file);
    assert.equal(xpath(this, report, 'count(//testcase)'), '2');
    assert.equal(xpath(this, report, 'count(//failure)'), '0');
    assert.equal(xpath(this, report, 'string(//testcase[1]/@name)'), 'vehicles');
    const text = fs.readFileSync(report, 'utf8');
    assert.match(text, /jti [0-9a-f-]{36}, kid sa…[0-9a-f]{2}\b/);
    assert.doesNotMatch(text + r.out + r.err, /eyJ|sandbox-demo-[0-9a-f]{8}/, 'no token and no whole kid');
  });

  it('a failing collection exits 1; each failure names the assertion, the expected and the actual value, at its line', async function () {
    const file = write('failing.http', FAILING);
    const report = path.join(dir, 'failing.xml');
    const r = await runCliInProcess(['test', file, ...flags(), '--junit', report]);
    assert.equal(r.code, 1, r.err + r.out);
    assert.match(
      r.out,
      /^FAIL {2}wrong-status {2}\(.*failing\.http:2\) {2}200 OK {2}\d+ ms {2}2 of 2 assertions failed$/m,
    );
    assert.match(r.out, /failing\.http:4:1: \?\? status == 201: expected == 201, actual 200$/m);
    assert.match(
      r.out,
      /failing\.http:5:1: \?\? body vehicles\[0\]\.speed > 1: expected > 1, actual the body has no vehicles\[0\]\.speed$/m,
    );
    assert.match(r.out, /token: jti [0-9a-f-]{36}, kid sa…[0-9a-f]{2}\b/);
    assert.match(r.out, /^PASS {2}fine /m);
    assert.match(r.out, /^1 passed, 1 failed$/m);

    assert.equal(xmllint(this, ['--noout', '--schema', XSD, report]).status, 0);
    assert.equal(xpath(this, report, 'string(/testsuites/@failures)'), '1');
    assert.equal(
      xpath(this, report, 'string(//testcase[@name="wrong-status"]/failure/@message)'),
      '?? status == 201: expected == 201, actual 200',
    );
    assert.match(
      xpath(this, report, 'string(//testcase[@name="wrong-status"]/failure)'),
      /failing\.http:5:1: \?\? body vehicles\[0\]\.speed > 1/,
    );
    assert.equal(xpath(this, report, 'count(//testcase[@name="fine"]/failure)'), '0');
  });

  it("?? token accepted fails with the refusal doctor's explanation; the credential comes from the environment variables", async () => {
    const other = makeCliCredential();
    try {
      const file = write('token.http', 'GET {{baseUrl}}/vehicles\n?? token accepted\n');
      const keyFile = other.flags[other.flags.indexOf('--private-key') + 1];
      const env = {
        MOBILITY_API_KEY_FILE: keyFile,
        MOBILITY_API_KEY_ID: other.kid,
        MOBILITY_API_ISSUER: 'org-1@example.test',
        MOBILITY_API_CREDENTIAL_TYPE: 'external-org',
      };
      const r = await runCliInProcess(['test', file, '--base-url', mds(), '--state-dir', path.join(dir, 'state')], env);
      assert.equal(r.code, 1, r.err + r.out);
      assert.match(r.out, /\?\? token accepted: the server answered 401 Unauthorized\. Likely cause: .*unknown_kid/);
      assert.ok(!r.out.includes(other.kid), 'the kid is masked');
    } finally {
      other.remove();
    }
  });

  it('bad input exits 2 before anything is sent: a malformed assertion (with its position), no such file, no credential', async () => {
    const before = seen.length;
    const bad = write('bad.http', 'GET {{baseUrl}}/vehicles\n\n?? status == 200\n  ?? status =! 200\n');
    const malformed = await runCliInProcess(['test', bad, ...flags()]);
    assert.equal(malformed.code, 2);
    assert.match(malformed.err, /bad\.http:4:13: "=!" is not a condition: use one of ==/);
    assert.match(malformed.err, /nothing was sent/);
    const missing = await runCliInProcess(['test', path.join(dir, 'nope.http'), ...flags()]);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /Cannot read the request file .*nope\.http: no such file or folder/);
    const noCredential = await runCliInProcess(['test', bad, '--base-url', mds()]);
    assert.equal(noCredential.code, 2);
    assert.match(noCredential.err, /Give a credential: .*MOBILITY_API_KEY_FILE/);
    const undefinedVariable = await runCliInProcess([
      'test',
      write('var.http', 'GET {{baseUrl}}/vehicles?x={{nope}}\n?? status == 200\n'),
      ...flags(),
    ]);
    assert.equal(undefinedVariable.code, 2);
    assert.match(undefinedVariable.err, /var\.http:1:1: Request 1 \(line 1\) uses \{\{nope\}\}, which is not defined/);
    const nothing = await runCliInProcess(['test', write('none.http', 'GET {{baseUrl}}/vehicles\n'), ...flags()]);
    assert.equal(nothing.code, 2);
    assert.match(nothing.err, /no request with assertions\. Write assertions under a request/);
    assert.equal(seen.length, before, 'the sandbox saw no request');
  });

  it('--all runs every request, --filter picks by name, --bail stops at the first failure, --json prints the runs', async () => {
    const folder = path.join(dir, 'collection');
    write('collection/a.http', FAILING);
    write('collection/b.http', PASSING);
    const all = await runCliInProcess(['test', folder, ...flags(), '--all']);
    assert.equal(all.code, 1);
    // A request without assertions is sent, not tested: never counted as a pass.
    assert.match(all.out, /^SENT {2}unasserted .*200 OK {2}\d+ ms {2}no assertion: sent, not tested$/m);
    assert.match(all.out, /^1 sent, not tested \(no assertion\)\n3 passed, 1 failed$/m);
    const filtered = await runCliInProcess(['test', folder, ...flags(), '--filter', 'every']);
    assert.equal(filtered.code, 0, filtered.out + filtered.err);
    assert.match(filtered.out, /^1 passed, 0 failed$/m);
    const bailed = await runCliInProcess(['test', folder, ...flags(), '--bail']);
    assert.equal(bailed.code, 1);
    assert.match(bailed.out, /^3 not run \(--bail\)\n0 passed, 1 failed$/m);
    const json = await runCliInProcess(['test', folder, ...flags(), '--json']);
    const doc = JSON.parse(json.out) as {
      passed: number;
      failed: number;
      requests: {
        label: string;
        outcomes: { passed: boolean; expected?: string; actual?: string }[];
        tokens: { jti: string; kid: string }[];
      }[];
    };
    assert.deepEqual([doc.passed, doc.failed], [3, 1]);
    // `expected` is the condition in words ("== 201"), `diff` the two values alone, as a diff tool compares them.
    assert.deepEqual(doc.requests[0].outcomes[0], {
      text: '?? status == 201',
      line: 4,
      column: 1,
      passed: false,
      expected: '== 201',
      actual: '200',
      diff: { expected: '201', actual: '200' },
      message: '?? status == 201: expected == 201, actual 200',
    });
    assert.match(doc.requests[0].tokens[0].kid, /^sa…[0-9a-f]{2}$/);
  });

  it('refuses what it does not run (script tests, handlers, a global ??, @loop, @ref, ?? js) at file:line:col, exit 2, with and without --all; the reports hold the error', async function () {
    const before = seen.length;
    const forms: [string, RegExp][] = [
      [
        'GET {{baseUrl}}/vehicles\n\n{{\n  test("status", () => expect(response.statusCode).toBe(201));\n}}\n',
        /:3:1: httpYac's script blocks/,
      ],
      ['GET {{baseUrl}}/vehicles\n\n{{ test.status(201) }}\n', /:3:1: httpYac's script blocks/],
      [
        'GET {{baseUrl}}/vehicles\n\n> {%\nclient.test("x", function () { client.assert(response.status === 201); });\n%}\n',
        /:3:1: JetBrains' handler scripts \(> \{%/,
      ],
      [
        '?? status == 201\n\n###\nGET {{baseUrl}}/vehicles\n',
        /:1:1: "\?\? status == 201" stands in a block without a request/,
      ],
      ['# @loop for 3\nGET {{baseUrl}}/vehicles\n', /:1:3: "# @loop" is not supported here/],
      ['# @ref login\nGET {{baseUrl}}/vehicles\n', /:1:3: "# @ref" is not supported here/],
      [
        '# @disabled {{ true }}\nGET {{baseUrl}}/vehicles\n',
        /:1:3: "# @disabled \{\{ true \}\}" is not supported here/,
      ],
      ['GET {{baseUrl}}/vehicles\n?? js response.parsedBody.x == 1\n', /:2:4: "\?\? js" is not supported here/],
    ];
    for (const [i, [text, said]] of forms.entries()) {
      const file = write(`refused/${i}.http`, text);
      for (const all of [[], ['--all']]) {
        const r = await runCliInProcess(['test', file, ...flags(), ...all]);
        assert.equal(r.code, 2, `${text}${all.join('')}: ${r.out}${r.err}`);
        assert.match(r.err, new RegExp(`${i}\\.http${said.source}`), r.err);
        assert.match(r.err, /nothing was sent/);
        assert.doesNotMatch(r.out, /passed/);
      }
    }
    const report = path.join(dir, 'refused.xml');
    const json = await runCliInProcess([
      'test',
      path.join(dir, 'refused/0.http'),
      ...flags(),
      '--junit',
      report,
      '--json',
    ]);
    assert.equal(json.code, 2);
    assert.match((JSON.parse(json.out) as { error: string }).error, /0\.http:3:1: httpYac's script blocks/);
    assert.equal(xmllint(this, ['--noout', '--schema', XSD, report]).status, 0);
    assert.equal(xpath(this, report, 'string(/testsuites/@errors)'), '1');
    assert.match(xpath(this, report, 'string(//error/@message)'), /0\.http:3:1: httpYac's script blocks/);
    const noCredential = await runCliInProcess([
      'test',
      path.join(dir, 'refused/0.http'),
      '--base-url',
      mds(),
      '--junit',
      report,
    ]);
    assert.equal(noCredential.code, 2);
    assert.match(xpath(this, report, 'string(//error/@message)'), /Give a credential/);
    assert.equal(seen.length, before, 'the sandbox saw no request');
  });

  it('# @disabled is skipped and # @sleep waits, as httpYac does; --bail reports what it did not run as skipped in JUnit', async function () {
    const file = write(
      'meta.http',
      '# @name off\n# @disabled\nGET {{baseUrl}}/vehicles\n?? status == 201\n\n###\n# @name slow\n# @sleep 20\nGET {{baseUrl}}/vehicles\n?? status == 201\n\n###\n# @name later\nGET {{baseUrl}}/vehicles\n?? status == 200\n\n###\n# @name plain\nGET {{baseUrl}}/vehicles\n',
    );
    const report = path.join(dir, 'meta.xml');
    const r = await runCliInProcess(['test', file, ...flags(), '--bail', '--all', '--junit', report]);
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(r.out, /^SKIP {2}off .*disabled \(# @disabled\): not sent$/m);
    assert.match(r.out, /^FAIL {2}slow /m);
    assert.match(r.out, /^1 skipped, 2 not run \(--bail\)\n0 passed, 1 failed$/m);
    assert.equal(xmllint(this, ['--noout', '--schema', XSD, report]).status, 0);
    assert.equal(
      xpath(this, report, 'string(//testcase[@name="later"]/skipped/@message)'),
      'not run: --bail stopped the run at the first failed request',
    );
    assert.equal(xpath(this, report, 'count(//testcase[@name="plain"]/skipped)'), '1');
    const all = await runCliInProcess([
      'test',
      write('plain.http', 'GET {{baseUrl}}/vehicles\n'),
      ...flags(),
      '--all',
      '--junit',
      report,
    ]);
    assert.equal(all.code, 0, all.out + all.err);
    assert.match(all.out, /^1 sent, not tested \(no assertion\)\n0 passed, 0 failed$/m);
    assert.equal(
      xpath(this, report, 'string(//testcase/skipped/@message)'),
      'sent, not tested: the request has no assertion (?? status == 200, …)',
    );
  });

  it('a 200 whose body is not JSON says so in request, --validate and test, whose body assertions fail with that reason; ?? mds conformance under --api maas is bad input', async () => {
    const html = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>Maintenance</title>');
    });
    await new Promise<void>((resolve) => html.listen(0, '127.0.0.1', resolve));
    const other = makeCliCredential();
    try {
      const base = `http://127.0.0.1:${(html.address() as AddressInfo).port}/mds`;
      const common = ['--base-url', base, ...other.flags];
      const listed = await runCliInProcess(['request', 'vehicles', '--api', 'mds', '--validate', ...common]);
      assert.equal(listed.code, 1, listed.out + listed.err);
      assert.match(
        listed.out,
        /^— The body is not JSON: its content type is text\/html, and it starts with "<!doctype html><title>Maintenance<\/title>"\.$/m,
      );
      assert.match(listed.out, /^MDS 2\.0: not checked: The body is not JSON/m);
      const file = write(
        'html.http',
        'GET {{baseUrl}}/vehicles\n?? status == 200\n?? mds pages\n?? mds items > 0\n?? body vehicles isArray\n',
      );
      const tested = await runCliInProcess(['test', file, ...common]);
      assert.equal(tested.code, 1, tested.out + tested.err);
      assert.match(tested.out, /3 of 4 assertions failed/);
      assert.match(
        tested.out,
        /html\.http:3:1: \?\? mds pages: expected every page followed to the last, actual page 1: The body is not JSON/,
      );
      assert.match(tested.out, /html\.http:4:1: \?\? mds items > 0: expected > 0, actual The body is not JSON/);
      const maas = await runCliInProcess([
        'test',
        write('maas.http', 'GET {{baseUrl}}/vehicles\n?? mds conformance\n'),
        ...common,
        '--api',
        'maas',
      ]);
      assert.equal(maas.code, 2, maas.out + maas.err);
      assert.match(
        maas.err,
        /maas\.http:2:1: "\?\? mds conformance" checks an answer against the official MDS 2\.0 schemas; this run is against the MaaS API/,
      );
    } finally {
      other.remove();
      html.close();
    }
  });

  it("says what it is: --version, each command's own --help, an unknown method, and credential errors that name where the key came from", async () => {
    const version = await runCliInProcess(['--version']);
    assert.equal(version.code, 0);
    assert.equal(
      version.out.trim(),
      `mobility-api ${(JSON.parse(fs.readFileSync('package.json', 'utf8')) as { version: string }).version}`,
    );
    const help = await runCliInProcess(['test', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.out, /^ {2}mobility-api test {5}<file\.http \| folder>/m);
    assert.match(help.out, /<credential> is one of:/);
    assert.doesNotMatch(help.out, /^ {2}mobility-api (harvest|sandbox|grpc)/m, 'the help of test alone');
    const sandboxHelp = await runCliInProcess(['sandbox', '--port', '1', '--help']);
    assert.match(sandboxHelp.out, /^ {2}mobility-api sandbox /m);
    assert.doesNotMatch(sandboxHelp.out, /^ {2}mobility-api test/m);
    const whole = await runCliInProcess(['help']);
    assert.equal(
      whole.out.match(/schema by server reflection \(v1, else v1alpha\) unless --proto\/--protoset/g)?.length,
      1,
      'each paragraph once',
    );
    const git = await runCliInProcess([
      'test',
      write('git.http', 'GIT {{baseUrl}}/vehicles\n?? status == 200\n'),
      ...flags(),
    ]);
    assert.equal(git.code, 2);
    assert.match(
      git.err,
      /git\.http:1:1: Request GIT \{\{baseUrl\}\}\/vehicles \(line 1\): "GIT" is not an HTTP method: write GET/,
    );
    assert.doesNotMatch(git.err, /not under the base URL/);
    const other = makeCliCredential();
    try {
      const keyFile = other.flags[other.flags.indexOf('--private-key') + 1];
      const file = write('env-key.http', 'GET {{baseUrl}}/vehicles\n?? status == 200\n');
      const noKid = await runCliInProcess(['test', file, '--base-url', mds()], {
        MOBILITY_API_KEY_FILE: keyFile,
        MOBILITY_API_ISSUER: 'org-1@example.test',
      });
      assert.equal(noKid.code, 2);
      assert.match(noKid.err, /MOBILITY_API_KEY_FILE needs MOBILITY_API_KEY_ID \(or --kid\)/);
      assert.doesNotMatch(noKid.err, /--private-key/);
      const gone = await runCliInProcess(['test', file, '--base-url', mds()], {
        MOBILITY_API_KEY_FILE: path.join(dir, 'no-key.pem'),
      });
      assert.match(gone.err, /Cannot read the MOBILITY_API_KEY_FILE file .*no-key\.pem: no such file/);
      const unknownDomain = await runCliInProcess(
        ['test', file, '--base-url', mds(), '--external-org-domain', 'example.org'],
        { MOBILITY_API_KEY_FILE: keyFile, MOBILITY_API_KEY_ID: other.kid, MOBILITY_API_ISSUER: 'someone@unknown.test' },
      );
      assert.equal(unknownDomain.code, 2);
      assert.match(
        unknownDomain.err,
        /the credential type is unknown\..* Here: MOBILITY_API_CREDENTIAL_TYPE external-org or MOBILITY_API_CREDENTIAL_TYPE iam \(or --type\)/,
      );
      const byFlags = await runCliInProcess([
        'test',
        file,
        '--base-url',
        mds(),
        '--private-key',
        keyFile,
        '--kid',
        other.kid,
        '--iss',
        'someone@unknown.test',
        '--external-org-domain',
        'example.org',
      ]);
      assert.match(byFlags.err, /Here: --type external-org or --type iam \(in CI, MOBILITY_API_CREDENTIAL_TYPE\)/);
    } finally {
      other.remove();
    }
  });

  it('--env-file gives {{variables}} and the credential variables; the built CLI exits 0, 1 and 2 as a CI job sees them', async () => {
    const file = write(
      'env.http',
      'GET {{baseUrl}}/vehicles?page_size={{size}}\n?? body vehicles.length == {{size}}\n',
    );
    const demo = JSON.parse(fs.readFileSync(sandbox.demo.credentialFile, 'utf8')) as {
      kid: string;
      issuer: string;
      privateKeyFile: string;
    };
    const envFile = write(
      'ci.env',
      `size=4\nMOBILITY_API_KEY_FILE=${path.resolve(path.dirname(sandbox.demo.credentialFile), demo.privateKeyFile)}\nMOBILITY_API_KEY_ID=${demo.kid}\nMOBILITY_API_ISSUER=${demo.issuer}\nMOBILITY_API_CREDENTIAL_TYPE=external-org\n`,
    );
    const state = ['--state-dir', path.join(dir, 'state'), '--precision', 'milliseconds'];
    const passed = await spawnBuiltCli(['test', file, '--base-url', mds(), '--env-file', envFile, ...state]);
    assert.equal(passed.code, 0, passed.err + passed.out);
    assert.match(passed.out, /^1 passed, 0 failed$/m);
    const failed = await spawnBuiltCli([
      'test',
      write('fail.http', FAILING),
      '--base-url',
      mds(),
      '--env-file',
      envFile,
      ...state,
    ]);
    assert.equal(failed.code, 1, failed.err);
    const bad = await spawnBuiltCli([
      'test',
      path.join(dir, 'nope.http'),
      '--base-url',
      mds(),
      '--env-file',
      envFile,
      ...state,
    ]);
    assert.equal(bad.code, 2);
    assert.doesNotMatch(passed.out + passed.err + failed.out + failed.err, new RegExp(demo.kid));
  });
});

describe('examples/contract: the collection docs/ci.md runs, against the sandbox', function () {
  this.timeout(60_000);
  let sandbox: RunningSandbox;
  let dir: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'contract-example-'));
    sandbox = await startSandbox({ demoDir: path.join(dir, 'demo') });
  });
  after(async () => {
    await sandbox?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('passes with the built CLI, as the CI jobs run it, and its JUnit report validates', async function () {
    const report = path.join(dir, 'reports/sandbox.xml');
    const baseUrl = sandbox.environments.find((e) => e.id === 'mds-staging')!.baseUrl;
    const r = await spawnBuiltCli([
      'test',
      'examples/contract',
      '--base-url',
      baseUrl,
      '--credential',
      sandbox.demo.credentialFile,
      '--precision',
      'milliseconds',
      '--junit',
      report,
      '--state-dir',
      path.join(dir, 'state'),
    ]);
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(r.out, /^5 passed, 0 failed$/m);
    assert.equal(r.err, '');
    assert.equal(xmllint(this, ['--noout', '--schema', XSD, report]).status, 0);
    assert.equal(xpath(this, report, 'string(/testsuites/@tests)'), '5');
  });
});
