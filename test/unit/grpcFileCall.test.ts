// A `.http` GRPC request as a call (core grpcFileCall, shared by the CodeLens and the CLI): the target and TLS as the
// request and its environment say, `proto <` paths made absolute from the file's folder, the metadata and messages.
import assert from 'node:assert/strict';
import path from 'node:path';
import { grpcFileCall } from '../../src/core/grpc/fileRequest';
import { parseRequestFile, resolveGrpcFileRequest } from '../../src/core/http';

function resolved(text: string, given: Record<string, string> = {}) {
  const file = parseRequestFile(text);
  return resolveGrpcFileRequest(file.requests[0], file, given);
}

describe('grpcFileCall: a .http GRPC request as a call', () => {
  const folder = path.resolve('/work/requests');

  it("goes to the environment's endpoint (its TLS and schema source) with the metadata and the stream's messages", () => {
    const request = resolved('GRPC {{grpcTarget}}/fleet.v1.Fleet/Upload\nx-trace: 1\n\n{"id": 1}\n===\n{"id": 2}\n', {
      grpcTarget: 'grpc.example.test:443',
    });
    const { endpoint, call, ownProtos } = grpcFileCall(
      request,
      { target: 'grpc.example.test:443', caFile: '/ca.pem', protoset: '/set.pb' },
      folder,
    );
    assert.deepEqual(endpoint, { target: 'grpc.example.test:443', caFile: '/ca.pem', protoset: '/set.pb' });
    assert.equal(ownProtos, false);
    assert.deepEqual(call, {
      method: 'fleet.v1.Fleet/Upload',
      messages: [{ id: 1 }, { id: 2 }],
      metadata: [['x-trace', '1']],
    });
  });

  it("uses the request's proto < files and includeDirs, relative to the file's folder, instead of the environment's schema", () => {
    const request = resolved(
      'proto < ./protos/fleet.proto\nincludeDirs: ["./protos", "/abs/common"]\n\n###\nGRPC grpc://127.0.0.1:50051/fleet.v1.Fleet/Get\n\n{}\n',
    );
    const { endpoint, ownProtos } = grpcFileCall(
      request,
      { target: '127.0.0.1:50051', protoFiles: ['/env/other.proto'] },
      folder,
    );
    assert.equal(ownProtos, true);
    assert.deepEqual(endpoint, {
      target: '127.0.0.1:50051',
      plaintext: true,
      protoFiles: [path.join(folder, 'protos/fleet.proto')],
      importPaths: [path.join(folder, 'protos'), '/abs/common'],
    });
  });

  it("a grpcs:// scheme asks for TLS over an environment's plaintext; the request's own authorization is sent as written", () => {
    const request = resolved(
      '# @authorization as-is\nGRPC grpcs://127.0.0.1:50051/fleet.v1.Fleet/Get\nauthorization: Bearer mine\n\n{}\n',
    );
    const { endpoint, call } = grpcFileCall(request, { target: '127.0.0.1:50051', plaintext: true }, folder);
    assert.deepEqual(endpoint, { target: '127.0.0.1:50051' });
    assert.deepEqual(call, {
      method: 'fleet.v1.Fleet/Get',
      messages: [{}],
      metadata: [['authorization', 'Bearer mine']],
      sendOwnAuthorization: true,
    });
  });
});
