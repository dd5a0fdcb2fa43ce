import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Assertion, GrpcAnswer } from '../../src/core/contract';
import { evaluateGrpcAssertion, fileAssertions, parseAssertion } from '../../src/core/contract';
import { startSandbox } from '../../src/sandbox/sandboxServer';
import type { GrpcCallLog, RunningSandbox } from '../../src/sandbox/sandboxServer';
import { runCliInProcess } from './support/cliRunner';
import { XSD, xmllint, xpath } from './support/junitSchema';

function assertion(text: string): Assertion {
  const read = parseAssertion({ text, line: 7, column: 0 });
  assert.ok('assertion' in read, JSON.stringify(read));
  return read.assertion;
}

const stream = (messages: Record<string, unknown>[], status = { code: 0, name: 'OK', message: '' }): GrpcAnswer => ({
  status,
  headers: { 'content-type': ['application/grpc'] },
  trailers: { 'x-served-by': ['sandbox'] },
  messages,
  serverStreaming: true,
  durationMs: 12.4,
});

describe('contract: assertions on a gRPC answer', () => {
  it('status by name (and by code), messages counted, header then trailer, duration of the call', () => {
    const ok = stream([{ device_id: 'a' }]);
    assert.equal(evaluateGrpcAssertion(assertion('?? status == OK'), ok).passed, true);
    assert.equal(evaluateGrpcAssertion(assertion('?? status == 0'), ok).passed, true);
    const notFound = evaluateGrpcAssertion(
      assertion('?? status == OK'),
      stream([], { code: 5, name: 'NOT_FOUND', message: 'no such vehicle' }),
    );
    assert.deepEqual(
      [notFound.passed, notFound.expected, notFound.actual],
      [false, '== OK', 'NOT_FOUND (5): no such vehicle'],
    );
    assert.equal(notFound.line, 7);
    assert.equal(evaluateGrpcAssertion(assertion('?? messages > 0'), ok).passed, true);
    const none = evaluateGrpcAssertion(assertion('?? messages > 0'), stream([]));
    assert.equal(none.message, '?? messages > 0: expected > 0, actual 0');
    assert.equal(evaluateGrpcAssertion(assertion('?? header content-type includes grpc'), ok).passed, true);
    assert.equal(evaluateGrpcAssertion(assertion('?? header x-served-by == sandbox'), ok).passed, true);
    assert.equal(
      evaluateGrpcAssertion(assertion('?? header x-absent exists'), ok).actual,
      'no x-absent header or trailer',
    );
    assert.equal(evaluateGrpcAssertion(assertion('?? duration < 13'), ok).passed, true);
    assert.equal(evaluateGrpcAssertion(assertion('?? duration < 12'), ok).passed, false);
  });

  it('a stream: every message holds the body assertion, the first that does not is named; an empty stream fails', () => {
    const answer = stream([
      { device_id: 'a', battery_percent: 80 },
      { device_id: 'b' },
      { device_id: 'c', battery_percent: '5' },
    ]);
    assert.equal(evaluateGrpcAssertion(assertion('?? body device_id isString'), answer).passed, true);
    const missing = evaluateGrpcAssertion(assertion('?? body battery_percent > 10'), answer);
    assert.equal(
      missing.message,
      'message 2 of 3: ?? body battery_percent > 10: expected > 10, actual the message has no battery_percent',
    );
    const typed = evaluateGrpcAssertion(
      assertion('?? body battery_percent isNumber'),
      stream([{ battery_percent: 80 }, { battery_percent: '5' }]),
    );
    assert.equal(typed.message, 'message 2 of 2: ?? body battery_percent isNumber: expected a number, actual "5"');
    assert.equal(
      evaluateGrpcAssertion(assertion('?? body contains "device_id":"b"'), stream([{ device_id: 'b' }])).passed,
      true,
    );
    const empty = evaluateGrpcAssertion(assertion('?? body device_id exists'), stream([]));
    assert.deepEqual([empty.passed, empty.actual], [false, 'the stream sent no message (OK)']);
  });

  it('a unary answer: the body forms read its one message; no message on an error status', () => {
    const unary: GrpcAnswer = {
      ...stream([{ vehicle: { device_id: 'a', propulsion_types: ['electric'] } }]),
      serverStreaming: false,
    };
    assert.equal(
      evaluateGrpcAssertion(assertion('?? body vehicle.propulsion_types[0] == electric'), unary).passed,
      true,
    );
    assert.equal(evaluateGrpcAssertion(assertion('?? body vehicle.propulsion_types.length == 1'), unary).passed, true);
    const failed: GrpcAnswer = { ...stream([], { code: 5, name: 'NOT_FOUND', message: '' }), serverStreaming: false };
    assert.equal(
      evaluateGrpcAssertion(assertion('?? body vehicle exists'), failed).actual,
      'no answer message (NOT_FOUND)',
    );
  });

  it("?? token accepted fails on UNAUTHENTICATED with the refusal doctor's lines", () => {
    const refused = {
      ...stream([], { code: 16, name: 'UNAUTHENTICATED', message: 'rule: jti_replayed' }),
      refusal: ['Likely cause: the jti was used before.'],
    };
    const outcome = evaluateGrpcAssertion(assertion('?? token accepted'), refused);
    assert.equal(
      outcome.message,
      '?? token accepted: the server answered UNAUTHENTICATED: rule: jti_replayed. Likely cause: the jti was used before.',
    );
    assert.equal(evaluateGrpcAssertion(assertion('?? token accepted'), stream([])).passed, true);
  });

  it('the editor flags ?? messages under a REST request and ?? mds … under a GRPC one, at their lines', () => {
    const text = [
      'GET https://x.test/vehicles',
      '?? messages > 0',
      '',
      '###',
      'GRPC localhost:1/a.B/C',
      '?? mds items > 0',
      '?? duration firstByte < 10',
      '?? messages > 0',
    ].join('\n');
    const { problems, counts } = fileAssertions(text);
    assert.deepEqual(
      problems.map((p) => [p.line, p.unsupported]),
      [
        [1, false],
        [5, false],
        [6, false],
      ],
    );
    assert.match(problems[0].message, /counts the answer messages of a GRPC request/);
    assert.match(problems[1].message, /"\?\? mds items" reads an MDS REST answer/);
    assert.deepEqual(counts, [
      { line: 0, assertions: 1 },
      { line: 4, assertions: 3 },
    ]);
  });
});

describe("CLI: test of GRPC requests against the sandbox's gRPC port", function () {
  this.timeout(60_000);
  let sandbox: RunningSandbox;
  let dir: string;
  const calls: GrpcCallLog[] = [];
  const env = () => sandbox.environments.find((e) => e.id === 'mds-staging')!;
  const flags = () => [
    '--base-url',
    env().baseUrl,
    '--credential',
    sandbox.demo.credentialFile,
    '--state-dir',
    path.join(dir, 'state'),
    '--precision',
    'milliseconds',
  ];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'contract-grpc-'));
    sandbox = await startSandbox({
      fleetSize: 30,
      pageSize: 50,
      demoDir: path.join(dir, 'demo'),
      onGrpcCall: (call) => calls.push(call),
    });
  });
  after(async () => {
    await sandbox?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs unary and streaming calls with a fresh token each; failures name the assertion and the message; JUnit validates', async function () {
    const listed = await runCliInProcess([
      'request',
      '/vehicles',
      '--query',
      'page_size=1',
      '--api',
      'mds',
      ...flags(),
      '--json',
    ]);
    assert.equal(listed.code, 0, listed.err);
    const id = (JSON.parse(listed.out) as { vehicles: { device_id: string }[] }).vehicles[0].device_id;
    const file = path.join(dir, 'grpc.http');
    fs.writeFileSync(
      file,
      [
        `@id = ${id}`,
        '',
        '# @name one-vehicle',
        'GRPC {{grpcTarget}}/mobility.sandbox.v1.VehicleService/GetVehicle',
        '',
        '{ "device_id": "{{id}}" }',
        '',
        '?? status == OK',
        '?? body device_id == {{id}}',
        '?? token accepted',
        '',
        '###',
        '# @name every-vehicle',
        'GRPC {{grpcTarget}}/mobility.sandbox.v1.VehicleService/ListVehicles',
        '',
        '{}',
        '',
        '?? messages == 30',
        '?? body device_id isString',
        '',
        '###',
        '# @name unknown-vehicle',
        'GRPC {{grpcTarget}}/mobility.sandbox.v1.VehicleService/GetVehicle',
        '',
        '{ "device_id": "not-a-vehicle" }',
        '',
        '?? status == OK',
        '?? body device_id exists',
      ].join('\n'),
    );
    const report = path.join(dir, 'grpc.xml');
    const before = calls.length;
    const r = await runCliInProcess([
      'test',
      file,
      ...flags(),
      '--grpc-target',
      `grpc://${env().grpcTarget}`,
      '--junit',
      report,
    ]);
    assert.equal(r.code, 1, r.err + r.out);
    assert.match(r.out, /^PASS {2}one-vehicle {2}\(.*grpc\.http:4\) {2}OK {2}\d+ ms {2}3 assertions passed$/m);
    assert.match(r.out, /^PASS {2}every-vehicle {2}\(.*grpc\.http:14\) {2}OK {2}\d+ ms {2}2 assertions passed$/m);
    assert.match(
      r.out,
      /^FAIL {2}unknown-vehicle {2}\(.*grpc\.http:23\) {2}NOT_FOUND {2}\d+ ms {2}2 of 2 assertions failed$/m,
    );
    assert.match(
      r.out,
      /grpc\.http:27:1: \?\? status == OK: expected == OK, actual NOT_FOUND \(5\): No vehicle has the device_id "not-a-vehicle"/m,
    );
    assert.match(
      r.out,
      /grpc\.http:28:1: \?\? body device_id exists: expected a value that exists .*, actual no answer message \(NOT_FOUND\)$/m,
    );
    assert.match(r.out, /^2 passed, 1 failed$/m);
    const made = calls.slice(before).filter((c) => !c.method.includes('Reflection'));
    assert.equal(made.length, 3, 'one call per request (reflection aside)');

    assert.equal(xmllint(this, ['--noout', '--schema', XSD, report]).status, 0);
    assert.equal(
      xpath(this, report, 'string(//testcase[@name="unknown-vehicle"]/failure/@message)'),
      '?? status == OK: expected == OK, actual NOT_FOUND (5): No vehicle has the device_id "not-a-vehicle".',
    );
    assert.match(
      xpath(this, report, 'string(//testcase[@name="every-vehicle"]/system-out)'),
      /^GRPC .*ListVehicles\nOK\ntoken: jti [0-9a-f-]{36}, kid sa…[0-9a-f]{2}\b/,
    );
  });

  it('a GRPC request to {{grpcTarget}} without --grpc-target, or ?? mds items on a call, is bad input (exit 2), nothing sent', async () => {
    const file = path.join(dir, 'bad.http');
    fs.writeFileSync(
      file,
      'GRPC {{grpcTarget}}/mobility.sandbox.v1.VehicleService/ListVehicles\n\n{}\n\n?? messages > 0\n',
    );
    const before = calls.length;
    const r = await runCliInProcess(['test', file, ...flags()]);
    assert.equal(r.code, 2, r.err + r.out);
    assert.match(
      r.err,
      /bad\.http:1:1: Request .* goes to \{\{grpcTarget\}\}: give the gRPC target \(mobility-api test --grpc-target <host:port>/,
    );
    fs.writeFileSync(
      file,
      'GRPC {{grpcTarget}}/mobility.sandbox.v1.VehicleService/ListVehicles\n\n{}\n\n?? mds items > 0\n',
    );
    const wrong = await runCliInProcess(['test', file, ...flags(), '--grpc-target', `grpc://${env().grpcTarget}`]);
    assert.equal(wrong.code, 2, wrong.err + wrong.out);
    assert.match(wrong.err, /bad\.http:5:1: "\?\? mds items" reads an MDS REST answer; this is a GRPC request/);
    assert.equal(calls.length, before);
  });
});
