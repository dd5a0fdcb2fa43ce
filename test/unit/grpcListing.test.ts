import assert from 'node:assert/strict';
import type { GrpcServiceInfo } from '../../src/core/grpc/index';
import {
  describeCallKind,
  describeGrpcSource,
  grpcNodeRow,
  methodPickRows,
  methodRow,
  serviceRow,
} from '../../src/results/grpc/grpcListing';

const SERVICE: GrpcServiceInfo = {
  name: 'mobility.sandbox.v1.VehicleService',
  methods: [
    {
      service: 'mobility.sandbox.v1.VehicleService',
      name: 'ListVehicles',
      fullName: '/mobility.sandbox.v1.VehicleService/ListVehicles',
      clientStreaming: false,
      serverStreaming: true,
      inputType: 'mobility.sandbox.v1.ListVehiclesRequest',
      outputType: 'mobility.sandbox.v1.Vehicle',
    },
    {
      service: 'mobility.sandbox.v1.VehicleService',
      name: 'GetVehicle',
      fullName: '/mobility.sandbox.v1.VehicleService/GetVehicle',
      clientStreaming: false,
      serverStreaming: false,
      inputType: 'mobility.sandbox.v1.GetVehicleRequest',
      outputType: 'mobility.sandbox.v1.Vehicle',
    },
  ],
};

describe('gRPC rows of the Environments tree', () => {
  it('shows the target beside "gRPC", and where the services came from in the tooltip once loaded', () => {
    assert.equal(grpcNodeRow('127.0.0.1:50051').description, '127.0.0.1:50051');
    const loaded = grpcNodeRow('127.0.0.1:50051', { kind: 'reflection', version: 'v1' });
    assert.equal(loaded.description, '127.0.0.1:50051');
    assert.deepEqual(loaded.tooltip, ['gRPC target 127.0.0.1:50051', 'Services from reflection v1']);
    assert.equal(describeGrpcSource({ kind: 'reflection', version: 'v1alpha' }), 'reflection v1alpha');
    assert.equal(describeGrpcSource({ kind: 'proto', files: ['/a.proto'] }), '.proto files');
    assert.equal(describeGrpcSource({ kind: 'protoset', file: '/a.protoset' }), 'protoset');
  });

  it('fits each row in the default side bar width, the detail in the tooltip ("reflectio…", "server strea…" were cut)', () => {
    // What the default side bar (300 px) showed whole at each depth before the text was cut with "…".
    const fits = (row: { label: string; description: string }, chars: number) =>
      assert.ok(
        `${row.label} ${row.description}`.length <= chars,
        `"${row.label} ${row.description}" is longer than ${chars} characters`,
      );
    fits(grpcNodeRow('127.0.0.1:50051', { kind: 'reflection', version: 'v1alpha' }), 30);
    fits(serviceRow({ ...SERVICE, name: 'mobility.sandbox.v1.MaasVehicleService' }), 28);
    const status = {
      ...SERVICE.methods[0],
      name: 'ListVehicleStatus',
      fullName: '/mobility.sandbox.v1.VehicleService/ListVehicleStatus',
    };
    for (const method of [...SERVICE.methods, status]) fits(methodRow(method), 24);
    assert.ok(serviceRow(SERVICE).tooltip.includes('mobility.sandbox.v1.VehicleService'), 'the package in the tooltip');
  });

  it('names each call kind', () => {
    assert.equal(describeCallKind({ clientStreaming: false, serverStreaming: false }), 'unary');
    assert.equal(describeCallKind({ clientStreaming: false, serverStreaming: true }), 'server streaming');
    assert.equal(describeCallKind({ clientStreaming: true, serverStreaming: false }), 'client streaming');
    assert.equal(describeCallKind({ clientStreaming: true, serverStreaming: true }), 'bidirectional streaming');
  });

  it('shows a service by its short name with its method count, and a method with its kind in a word; full names, kind and types in the tooltip', () => {
    assert.deepEqual([serviceRow(SERVICE).label, serviceRow(SERVICE).description], ['VehicleService', '2 methods']);
    const row = methodRow(SERVICE.methods[0]);
    assert.equal(row.label, 'ListVehicles');
    assert.equal(row.description, 'stream');
    assert.equal(row.spoken, 'ListVehicles, server streaming · ListVehiclesRequest');
    assert.equal(methodRow(SERVICE.methods[1]).description, 'unary');
    assert.deepEqual(row.tooltip, [
      '/mobility.sandbox.v1.VehicleService/ListVehicles',
      'server streaming',
      'Request: mobility.sandbox.v1.ListVehiclesRequest',
      'Response: stream mobility.sandbox.v1.Vehicle',
    ]);
  });

  it('offers every method in the picker, with its service and kind', () => {
    const rows = methodPickRows([SERVICE]);
    assert.deepEqual(
      rows.map((r) => [r.label, r.description]),
      [
        ['ListVehicles', 'VehicleService · server streaming'],
        ['GetVehicle', 'VehicleService · unary'],
      ],
    );
    assert.equal(rows[1].method.fullName, '/mobility.sandbox.v1.VehicleService/GetVehicle');
  });
});
