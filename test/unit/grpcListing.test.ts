import assert from 'node:assert/strict';
import type { GrpcServiceInfo } from '../../src/core/grpc/index';
import { describeCallKind, describeGrpcSource, grpcNodeRow, methodPickRows, methodRow, serviceRow } from '../../src/results/grpcListing';

const SERVICE: GrpcServiceInfo = {
  name: 'mobility.sandbox.v1.VehicleService',
  methods: [
    { service: 'mobility.sandbox.v1.VehicleService', name: 'ListVehicles', fullName: '/mobility.sandbox.v1.VehicleService/ListVehicles', clientStreaming: false, serverStreaming: true, inputType: 'mobility.sandbox.v1.ListVehiclesRequest', outputType: 'mobility.sandbox.v1.Vehicle' },
    { service: 'mobility.sandbox.v1.VehicleService', name: 'GetVehicle', fullName: '/mobility.sandbox.v1.VehicleService/GetVehicle', clientStreaming: false, serverStreaming: false, inputType: 'mobility.sandbox.v1.GetVehicleRequest', outputType: 'mobility.sandbox.v1.Vehicle' },
  ],
};

describe('gRPC rows of the Environments tree', () => {
  it('says where the services came from beside the target, once loaded', () => {
    assert.equal(grpcNodeRow('127.0.0.1:50051').description, '127.0.0.1:50051');
    assert.equal(grpcNodeRow('127.0.0.1:50051', { kind: 'reflection', version: 'v1' }).description, '127.0.0.1:50051 · reflection v1');
    assert.equal(describeGrpcSource({ kind: 'reflection', version: 'v1alpha' }), 'reflection v1alpha');
    assert.equal(describeGrpcSource({ kind: 'proto', files: ['/a.proto'] }), '.proto files');
    assert.equal(describeGrpcSource({ kind: 'protoset', file: '/a.protoset' }), 'protoset');
  });

  it('names each call kind', () => {
    assert.equal(describeCallKind({ clientStreaming: false, serverStreaming: false }), 'unary');
    assert.equal(describeCallKind({ clientStreaming: false, serverStreaming: true }), 'server streaming');
    assert.equal(describeCallKind({ clientStreaming: true, serverStreaming: false }), 'client streaming');
    assert.equal(describeCallKind({ clientStreaming: true, serverStreaming: true }), 'bidirectional streaming');
  });

  it('shows a service by its short name with its package, and a method with its kind and input type; full names in the tooltip', () => {
    assert.deepEqual([serviceRow(SERVICE).label, serviceRow(SERVICE).description], ['VehicleService', 'mobility.sandbox.v1']);
    const row = methodRow(SERVICE.methods[0]);
    assert.equal(row.label, 'ListVehicles');
    assert.equal(row.description, 'server streaming · ListVehiclesRequest');
    assert.deepEqual(row.tooltip, ['/mobility.sandbox.v1.VehicleService/ListVehicles', 'server streaming', 'Request: mobility.sandbox.v1.ListVehiclesRequest', 'Response: stream mobility.sandbox.v1.Vehicle']);
  });

  it('offers every method in the picker, with its service and kind', () => {
    const rows = methodPickRows([SERVICE]);
    assert.deepEqual(rows.map((r) => [r.label, r.description]), [['ListVehicles', 'VehicleService · server streaming'], ['GetVehicle', 'VehicleService · unary']]);
    assert.equal(rows[1].method.fullName, '/mobility.sandbox.v1.VehicleService/GetVehicle');
  });
});
