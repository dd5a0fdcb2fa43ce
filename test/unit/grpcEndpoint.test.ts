import assert from 'node:assert/strict';
import { parseGrpcEndpoint } from '../../src/core/environment';

const WHERE = 'mobilityApi.grpc.environments["mds-staging"]';

describe("an environment's gRPC endpoint setting", () => {
  it('reads a target with its TLS and schema settings, paths made absolute by the caller', () => {
    const read = parseGrpcEndpoint(
      { target: 'grpc.example.com:443', caFile: 'ca.pem', protoFiles: ['a.proto', ' '], importPaths: ['protos'] },
      WHERE,
      (p) => `/ws/${p}`,
    );
    assert.deepEqual(read.problems, []);
    assert.deepEqual(read.endpoint, {
      target: 'grpc.example.com:443',
      caFile: '/ws/ca.pem',
      protoFiles: ['/ws/a.proto'],
      importPaths: ['/ws/protos'],
    });
  });

  it('takes a bare string as the target, and IPv6 in brackets', () => {
    assert.deepEqual(parseGrpcEndpoint('127.0.0.1:50051', WHERE).endpoint, { target: '127.0.0.1:50051' });
    assert.deepEqual(parseGrpcEndpoint({ target: '[::1]:50051', plaintext: true }, WHERE).endpoint, {
      target: '[::1]:50051',
      plaintext: true,
    });
  });

  it('names the setting and what to write for a target with a scheme, a path, a bad port or none', () => {
    const scheme = parseGrpcEndpoint({ target: 'https://grpc.example.com' }, WHERE);
    assert.equal(scheme.endpoint, undefined);
    assert.match(
      scheme.problems[0],
      /mobilityApi\.grpc\.environments\["mds-staging"\]: "target" must be host:port without a scheme or path .*"https:\/\/grpc\.example\.com"/,
    );
    assert.match(
      parseGrpcEndpoint({ target: 'grpc.example.com:99999' }, WHERE).problems[0],
      /port of "target" must be 1 to 65535, not 99999/,
    );
    assert.match(parseGrpcEndpoint({ plaintext: true }, WHERE).problems[0], /"target" is required, as host:port/);
    assert.match(parseGrpcEndpoint(42, WHERE).problems[0], /must be an object/);
  });

  it('refuses settings that cannot go together, and lists of the wrong type', () => {
    assert.match(
      parseGrpcEndpoint({ target: 'localhost:1', plaintext: true, caFile: 'ca.pem' }, WHERE).problems.join(' '),
      /"caFile" is for TLS; it cannot go with "plaintext": true/,
    );
    assert.match(
      parseGrpcEndpoint({ target: 'h:1', protoFiles: ['a.proto'], protoset: 'x.pb' }, WHERE).problems.join(' '),
      /"protoFiles" or "protoset", not both/,
    );
    assert.match(
      parseGrpcEndpoint({ target: 'h:1', importPaths: 'protos' }, WHERE).problems.join(' '),
      /"importPaths" must be a list of paths/,
    );
  });
});
