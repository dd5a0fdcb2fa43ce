// "Copy as grpcurl": the text the clipboard gets, run by a real bash with a recording `grpcurl` first on PATH that
// prints the arguments it was given, one per line: what a user's shell would hand the real grpcurl.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { grpcurlCommand } from '../../src/core/http/grpcurlCommand';

const HOSTILE = `it's $(touch /tmp/grpcurl-pwned) \`id\` "q" ;|& $HOME`;

describe('grpcurlCommand', () => {
  let bin: string;
  before(() => {
    bin = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-grpcurl-'));
    fs.writeFileSync(path.join(bin, 'grpcurl'), '#!/bin/sh\nfor a in "$@"; do printf "%s\\n" "$a"; done\n', {
      mode: 0o755,
    });
  });
  after(() => fs.rmSync(bin, { recursive: true, force: true }));

  /** What the recording grpcurl received when `text` is pasted into bash. */
  const argv = (text: string): string[] =>
    execFileSync('bash', ['-c', text], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` },
    })
      .replace(/\n$/, '')
      .split('\n');

  it('keeps the token in a shell variable on its own line, and passes target, method and message through unchanged', () => {
    const text = grpcurlCommand(
      {
        target: '127.0.0.1:50051',
        method: '/mobility.sandbox.v1.VehicleService/GetVehicle',
        plaintext: true,
        metadata: [
          ['x-request-id', HOSTILE],
          ['Authorization', 'Bearer stale'],
        ],
        messages: [{ device_id: HOSTILE }],
      },
      { token: 'eyJhbGciOiJFUzI1NiJ9.eyJqdGkiOiJ4In0.c2ln' },
    );
    const [first, second, ...rest] = text.split('\n');
    assert.equal(first, "TOKEN='eyJhbGciOiJFUzI1NiJ9.eyJqdGkiOiJ4In0.c2ln'");
    assert.equal(rest.length, 0, 'two lines');
    assert.ok(!second.includes('eyJ'), 'the token only in the variable');
    assert.deepEqual(argv(text), [
      '-plaintext',
      '-H',
      'authorization: Bearer eyJhbGciOiJFUzI1NiJ9.eyJqdGkiOiJ4In0.c2ln',
      '-H',
      `x-request-id: ${HOSTILE}`,
      '-d',
      JSON.stringify({ device_id: HOSTILE }),
      '127.0.0.1:50051',
      'mobility.sandbox.v1.VehicleService/GetVehicle',
    ]);
    assert.equal(fs.existsSync('/tmp/grpcurl-pwned'), false, 'nothing in a value ran');
  });

  it('names the CA file, the .proto files with their import paths (and the folder of a file outside them), and sends a client stream as JSON objects one after the other', () => {
    const text = grpcurlCommand(
      {
        target: 'grpc.example.test:443',
        method: 'fleet.v1.Fleet/Upload',
        caFile: '/certs/my ca.pem',
        protoFiles: ['/work/protos/fleet.proto', '/other place/extra.proto'],
        importPaths: ['/work/protos', '/work/common'],
        messages: [{ id: 1 }, { id: "2'" }],
      },
      { token: 'tok' },
    );
    assert.deepEqual(argv(text), [
      '-cacert',
      '/certs/my ca.pem',
      '-import-path',
      '/work/protos',
      '-import-path',
      '/work/common',
      '-import-path',
      '/other place',
      '-proto',
      '/work/protos/fleet.proto',
      '-proto',
      '/other place/extra.proto',
      '-H',
      'authorization: Bearer tok',
      '-d',
      '{"id":1} {"id":"2\'"}',
      'grpc.example.test:443',
      'fleet.v1.Fleet/Upload',
    ]);
  });

  it('without import paths passes the .proto files alone; a protoset when there are none', () => {
    assert.deepEqual(
      argv(
        grpcurlCommand({ target: 'h:1', method: 'p.S/M', protoFiles: ['/a/s.proto'], messages: [] }, { token: 't' }),
      ),
      ['-proto', '/a/s.proto', '-H', 'authorization: Bearer t', '-d', '{}', 'h:1', 'p.S/M'],
    );
    assert.deepEqual(
      argv(grpcurlCommand({ target: 'h:1', method: 'p.S/M', protoset: '/a/set.pb', messages: [{}] }, { token: 't' })),
      ['-protoset', '/a/set.pb', '-H', 'authorization: Bearer t', '-d', '{}', 'h:1', 'p.S/M'],
    );
  });

  it('can leave the token to a command run when pasted', () => {
    const text = grpcurlCommand(
      { target: 'h:1', method: 'p.S/M', messages: [{}] },
      { tokenCommand: "printf '%s' from-command" },
    );
    assert.equal(text.split('\n')[0], 'TOKEN="$(printf \'%s\' from-command)"');
    assert.deepEqual(argv(text), ['-H', 'authorization: Bearer from-command', '-d', '{}', 'h:1', 'p.S/M']);
  });

  it("sends the request's own authorization as written (# @authorization as-is), with no token variable", () => {
    const text = grpcurlCommand(
      { target: 'h:1', method: 'p.S/M', plaintext: true, messages: [{}] },
      { authorization: `Bearer it's mine` },
    );
    assert.equal(text.includes('TOKEN'), false);
    assert.deepEqual(argv(text), ['-plaintext', '-H', "authorization: Bearer it's mine", '-d', '{}', 'h:1', 'p.S/M']);
  });
});
