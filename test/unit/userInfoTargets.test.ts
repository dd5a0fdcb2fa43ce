// A password in an address the CLI is given (a gRPC target, an audience, a URL in a .http file, with or without a
// scheme, with a look-alike of "@") is refused with exit 2 and never repeated: not on the terminal, not in --json,
// not in a JUnit report. One rule (core/environment's hasUserInfo) for base URLs, audiences and gRPC targets.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { hasUserInfo } from '../../src/core/environment';
import { makeCliCredential, runCliInProcess } from './support/cliRunner';
import type { CliCredential } from './support/cliRunner';

const SECRET = 'hunter2pw';

describe("a password in a gRPC target, an audience or a request file's URL is refused, never repeated", function () {
  this.timeout(30_000);
  let cred: CliCredential;
  before(() => (cred = makeCliCredential()));
  after(() => cred?.remove());

  it('hasUserInfo: with and without a scheme, a full-width or small at sign; not an @ in a path or query', () => {
    for (const text of [
      `https://u:${SECRET}@host/mds`,
      `u:${SECRET}@host:443`,
      `grpc://u:${SECRET}@host:443`,
      `https://u:${SECRET}\uFF20host/mds`,
      `u:${SECRET}\uFE6Bhost:443`,
      `u:${SECRET}@host/mds/vehicles`,
    ]) {
      assert.ok(hasUserInfo(text), text);
    }
    for (const text of ['https://host/mds', 'host:443', '/vehicles?email=a@b.test', 'https://host/mds/@me'])
      assert.ok(!hasUserInfo(text), text);
  });

  it('the CLI exits 2 without the password: grpc call --target, send and test of grpc://u:pw@…, --grpc-target, decode --aud, a base URL with ＠, a URL without scheme', async () => {
    const dir = cred.dir;
    const write = (name: string, text: string) => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, text);
      return file;
    };
    const inFile = write('in-file.http', `GRPC grpc://u:${SECRET}@127.0.0.1:9/a.b.Svc/Get\n?? status == OK\n\n{}\n`);
    const byVariable = write('variable.http', 'GRPC {{grpcTarget}}/a.b.Svc/Get\n?? status == OK\n\n{}\n');
    const noScheme = write('no-scheme.http', `GET u:${SECRET}@127.0.0.1:9/mds/vehicles\n?? status == 200\n`);
    const junit = path.join(dir, 'report.xml');
    const base = ['--base-url', 'http://127.0.0.1:9/mds', '--api', 'mds', ...cred.flags];
    const runs = {
      'grpc call --target': [
        'grpc',
        'call',
        'a.b.Svc/Get',
        '--target',
        `u:${SECRET}@127.0.0.1:9`,
        '--plaintext',
        '--aud',
        'http://127.0.0.1:9/mds',
        ...cred.flags,
      ],
      'send grpc://': ['send', inFile, ...base],
      'send --grpc-target': ['send', byVariable, ...base, '--grpc-target', `u:${SECRET}@127.0.0.1:9`, '--plaintext'],
      'test grpc://': ['test', inFile, ...base, '--junit', junit, '--json'],
      'test --grpc-target': [
        'test',
        byVariable,
        ...base,
        '--grpc-target',
        `u:${SECRET}@127.0.0.1:9`,
        '--plaintext',
        '--junit',
        junit,
        '--json',
      ],
      'test, a URL without scheme': ['test', noScheme, ...base, '--junit', junit, '--json'],
      'decode --aud': ['decode', '--aud', `http://u:${SECRET}@x.test`, 'eyJhbGciOiJub25lIn0.eyJhdWQiOiJ4In0.'],
      'request, a base URL with ＠': [
        'request',
        '/vehicles',
        '--base-url',
        `https://u:${SECRET}\uFF20host/mds`,
        '--api',
        'mds',
        ...cred.flags,
      ],
    };
    for (const [what, args] of Object.entries(runs)) {
      const run = await runCliInProcess(args);
      assert.equal(run.code, 2, `${what}: ${run.err}`);
      assert.match(run.err, /holds a user name or password/, what);
      assert.ok(!(run.out + run.err).includes(SECRET), `${what} repeats the password:\n${run.out}${run.err}`);
      if (fs.existsSync(junit))
        assert.ok(!fs.readFileSync(junit, 'utf8').includes(SECRET), `${what}: the JUnit report holds the password`);
    }
  });
});
