import assert from 'node:assert/strict';
import { MobilityError } from '../../src/core/base/errors';
import { parseRequestFile } from '../../src/core/http/requestFile';
import { resolveFileRequest, resolveGrpcFileRequest } from '../../src/core/http/requestFileResolve';
import { grpcRequestText } from '../../src/core/http/requestFileGrpc';

const FILE = [
  '@vehicle = 7f1c',
  'proto < ./protos/vehicles.proto',
  'includeDirs: ["./protos", "../common protos"]',
  'keepCase: true',
  '',
  '###',
  '# @name one',
  'GRPC {{grpcTarget}}/mobility.sandbox.v1.Vehicles/GetVehicle',
  'x-request-id: {{$guid}}',
  'x-note: for {{vehicle}}',
  '',
  '{',
  '  "vehicleId": "{{vehicle}}",',
  '  "label": "ünïcode \\"quoted\\""',
  '}',
  '',
  '###',
  'proto < ../extra.proto',
  'GRPC grpc://127.0.0.1:50051/mobility.sandbox.v1.Vehicles/Upload',
  '',
  '{"a": 1}',
  '===',
  '{"a": 2}',
  '=== wait-for-server',
  '{"a": 3}',
  '===',
  '',
  '###',
  'GRPC localhost:50051/Echo/Say',
  '',
  '[{"a": 1}, {"a": 2}]',
  '',
  '###',
  'GET {{baseUrl}}/vehicles',
].join('\r\n');

describe('GRPC requests in request files (httpYac / IntelliJ syntax)', () => {
  it('reads GRPC request lines, metadata, bodies, and file-level and request-level proto imports', () => {
    const file = parseRequestFile(FILE);
    assert.deepEqual(file.problems, []);
    assert.deepEqual(
      file.requests.map((r) => [r.method, r.line, r.grpc?.method, r.grpc?.target]),
      [
        ['GRPC', 7, 'mobility.sandbox.v1.Vehicles/GetVehicle', '{{grpcTarget}}'],
        ['GRPC', 18, 'mobility.sandbox.v1.Vehicles/Upload', 'grpc://127.0.0.1:50051'],
        ['GRPC', 28, 'Echo/Say', 'localhost:50051'],
        ['GET', 33, undefined, undefined],
      ],
    );
    assert.deepEqual(file.protos, [
      { file: './protos/vehicles.proto', includeDirs: ['./protos', '../common protos'], line: 1 },
    ]);
    assert.deepEqual(
      file.requests[1].grpc?.protos.map((p) => p.file),
      ['./protos/vehicles.proto', '../extra.proto'],
    );
    assert.deepEqual(
      file.requests[0].headers.map((h) => h.name),
      ['x-request-id', 'x-note'],
    );
  });

  it('substitutes {{grpcTarget}} and file variables into the target, metadata and JSON body', () => {
    const file = parseRequestFile(FILE);
    const resolved = resolveGrpcFileRequest(file.requests[0], file, { grpcTarget: 'localhost:9100' });
    assert.equal(resolved.target, 'localhost:9100');
    assert.equal(resolved.transport, undefined);
    assert.equal(resolved.method, 'mobility.sandbox.v1.Vehicles/GetVehicle');
    assert.deepEqual(resolved.messages, [{ vehicleId: '7f1c', label: 'ünïcode "quoted"' }]);
    assert.equal(resolved.metadata[1][1], 'for 7f1c');
    assert.match(resolved.metadata[0][1], /^[0-9a-f-]{36}$/);
    assert.deepEqual(resolved.protoFiles, ['./protos/vehicles.proto']);
    assert.deepEqual(resolved.importPaths, ['./protos', '../common protos']);
  });

  it('reads the messages of a stream from === frames or a JSON list, and the transport from the scheme', () => {
    const file = parseRequestFile(FILE);
    const frames = resolveGrpcFileRequest(file.requests[1], file);
    assert.deepEqual(frames.messages, [{ a: 1 }, { a: 2 }, { a: 3 }]);
    assert.deepEqual([frames.target, frames.transport], ['127.0.0.1:50051', 'plaintext']);
    assert.deepEqual(resolveGrpcFileRequest(file.requests[2], file).messages, [{ a: 1 }, { a: 2 }]);
  });

  it('sends one empty message when there is no body', () => {
    const file = parseRequestFile('GRPC localhost:1/a.B/C\nx-a: 1\n');
    assert.deepEqual(resolveGrpcFileRequest(file.requests[0], file).messages, [{}]);
  });

  it('names the line and what to write for a bad method path, a missing target and a body that is not JSON', () => {
    const cases: [string, RegExp][] = [
      [
        'GRPC localhost:1/mobility.Vehicles',
        /Line 1: "GRPC localhost:1\/mobility\.Vehicles" is not a gRPC method path: write "GRPC \{\{grpcTarget\}\}\/package\.Service\/Method"/,
      ],
      [
        'GRPC mobility.Vehicles/List',
        /Line 1: "GRPC mobility\.Vehicles\/List" names no target: write "GRPC host:port\/mobility\.Vehicles\/List" or "GRPC \{\{grpcTarget\}\}\/mobility\.Vehicles\/List"/,
      ],
      ['GRPC /mobility.Vehicles/List', /names no target/],
      ['GRPC host:1/mobility.Vehicles/List-All', /"mobility\.Vehicles\/List-All" is not a gRPC method/],
      ['GRPC host:1/api/mobility.Vehicles/List', /the target "host:1\/api" has a path/],
      [
        '\n\nGRPC host:1/a.B/C\n\n{\n  "a": 1,\n  "b": }\n',
        /Request at line 3: the message at line 7, column 8 is not JSON \(ValueExpected\)/,
      ],
      ['GRPC host:1/a.B/C\n\n{"a": 1', /line 3, column 8 is not JSON \(CloseBraceExpected\)/],
      ['GRPC host:1/a.B/C\n\n"text"', /line 3 is not a JSON object/],
    ];
    for (const [text, expected] of cases) {
      const file = parseRequestFile(text);
      assert.equal(file.problems.length, 1, text);
      assert.match(file.problems[0].message, expected);
      // The request stays, so that its CodeLens can say why; sending it refuses with the same words.
      assert.throws(
        () => resolveGrpcFileRequest(file.requests[0], file, { grpcTarget: 'x:1' }),
        (err: unknown) => err instanceof MobilityError && expected.test(err.message),
      );
    }
  });

  it('checks a body with variables once they are substituted', () => {
    const file = parseRequestFile('@n = 1,\nGRPC host:1/a.B/C\n\n{"a": {{n}}}');
    assert.deepEqual(file.problems, []);
    assert.throws(() => resolveGrpcFileRequest(file.requests[0], file), /line 4, column \d+ is not JSON/);
  });

  it('refuses an authorization metadata line as REST refuses an Authorization header, unless # @authorization as-is', () => {
    const text = 'GRPC host:1/a.B/C\nauthorization: Bearer abc\n';
    const file = parseRequestFile(text);
    assert.throws(
      () => resolveGrpcFileRequest(file.requests[0], file),
      (err: unknown) =>
        err instanceof MobilityError &&
        err.code === 'AUTHORIZATION_GIVEN' &&
        /# @authorization as-is/.test(err.message),
    );
    const asIs = parseRequestFile(`# @authorization as-is\n${text}`);
    assert.deepEqual(asIs.problems, []);
    const resolved = resolveGrpcFileRequest(asIs.requests[0], asIs);
    assert.equal(resolved.authorization, 'Bearer abc');
    assert.deepEqual(resolved.metadata, []);
  });

  it('says what to fix in proto lines and where proto lines do nothing', () => {
    const file = parseRequestFile(
      'proto <\nincludeDirs: [1]\nlongs: String\nfoo: bar\n\n###\nproto < a.proto\nGET http://x/y\n',
    );
    assert.deepEqual(
      file.problems.map((p) => p.line),
      [1, 3, 0, 6],
    );
    assert.match(file.problems[0].message, /includeDirs must be a JSON list/);
    assert.match(file.problems[1].message, /"foo" is not an option of "proto <"/);
    assert.match(file.problems[2].message, /names no file: write "proto < \.\/service\.proto"/);
    assert.match(file.problems[3].message, /no effect/);
  });

  it('leaves REST requests as they were: GET resolution ignores GRPC', () => {
    const file = parseRequestFile(FILE);
    assert.equal(resolveFileRequest(file.requests[3], file, { baseUrl: 'http://h' }).url, 'http://h/vehicles');
  });

  it('grpcRequestText writes a request that reads back to the same method, {{grpcTarget}} and message', () => {
    const message = { vehicleId: 'a"b\'c', nested: { list: [1, 2], text: 'ü 🚲' }, empty: {} };
    const text = grpcRequestText({ method: '/mobility.sandbox.v1.Vehicles/GetVehicle', message, name: 'get' });
    assert.match(text, /^# @name get\nGRPC \{\{grpcTarget\}\}\/mobility\.sandbox\.v1\.Vehicles\/GetVehicle\n\n\{/);
    const file = parseRequestFile(text);
    assert.deepEqual(file.problems, []);
    assert.equal(file.requests[0].name, 'get');
    const resolved = resolveGrpcFileRequest(file.requests[0], file, { grpcTarget: 'localhost:1' });
    assert.deepEqual(
      [resolved.method, resolved.target, resolved.messages],
      ['mobility.sandbox.v1.Vehicles/GetVehicle', 'localhost:1', [message]],
    );

    const stream = grpcRequestText({
      method: 'a.B/C',
      message: [{ a: 1 }, { a: 2 }],
      targetVariable: false,
      target: 'localhost:50051',
    });
    const streamFile = parseRequestFile(stream);
    assert.deepEqual(resolveGrpcFileRequest(streamFile.requests[0], streamFile).messages, [{ a: 1 }, { a: 2 }]);
    assert.equal(streamFile.requests[0].grpc?.target, 'localhost:50051');
  });
});
