/**
 * The handlers of the sandbox's gRPC services (proto/mobility/sandbox/v1/*.proto). They read the
 * same synthetic fleet as the REST routes and write its items as they are: the proto messages have
 * the MDS JSON field names (proto-loader with keepCase), so a vehicle over gRPC equals the same
 * vehicle over REST.
 */
import * as grpc from '@grpc/grpc-js';
import { maasVehicleAt } from '../routes/mdsResponses';
import type { FleetListing, SyntheticFleet } from '../world/syntheticFleet';
import type { CallGuard } from './grpcGuard';
import { grpcError, statusName } from './grpcErrors';
import { streamAll } from './grpcStreaming';

/** The package of the sandbox's services. */
export const SANDBOX_PROTO_PACKAGE = 'mobility.sandbox.v1';
/** The MDS environments' service. */
export const VEHICLE_SERVICE = `${SANDBOX_PROTO_PACKAGE}.VehicleService`;
/** The MaaS environment's service. */
export const MAAS_VEHICLE_SERVICE = `${SANDBOX_PROTO_PACKAGE}.MaasVehicleService`;

/** What the handlers read. */
export interface ServiceContext {
  fleet: SyntheticFleet;
  /** The sandbox's clock, in ms since the epoch: statuses are those at the moment of the call. */
  now: () => number;
  log: CallGuard['log'];
}

type StreamCall = grpc.ServerWritableStream<unknown, unknown>;

function listing(
  ctx: ServiceContext,
  service: string,
  method: string,
  itemAt: (nowMs: number) => (index: number) => unknown,
  entries: () => FleetListing = () => ({ count: ctx.fleet.size, indexAt: (p) => p }),
) {
  const path = `/${service}/${method}`;
  return (call: StreamCall) => {
    const { count, indexAt } = entries();
    const at = itemAt(ctx.now());
    streamAll(call, count, (p) => at(indexAt(p))).then(
      (outcome) => ctx.log({ method: path, status: outcome.cancelled ? 'CANCELLED' : 'OK', items: outcome.sent }),
      (err: unknown) => {
        const error = grpcError(
          grpc.status.INTERNAL,
          `The sandbox failed while streaming (a bug in the sandbox): ${err instanceof Error ? err.message : String(err)}`,
        );
        ctx.log({ method: path, status: statusName(error.code), description: error.details });
        call.emit('error', error);
      },
    );
  };
}

function lookup(
  ctx: ServiceContext,
  method: string,
  find: (id: string) => number | undefined,
  answer: (index: number) => unknown,
) {
  const path = `/${VEHICLE_SERVICE}/${method}`;
  return (call: grpc.ServerUnaryCall<{ device_id?: string }, unknown>, callback: grpc.sendUnaryData<unknown>) => {
    const id = call.request.device_id ?? '';
    const index = find(id);
    if (index === undefined) {
      const error = grpcError(
        grpc.status.NOT_FOUND,
        `No vehicle has the device_id ${JSON.stringify(id.slice(0, 80))}.`,
      );
      ctx.log({ method: path, status: statusName(error.code), description: error.details });
      callback(error);
      return;
    }
    ctx.log({ method: path, status: 'OK' });
    callback(null, answer(index));
  };
}

/** `mobility.sandbox.v1.VehicleService`: the MDS vehicles endpoints. */
export function vehicleServiceHandlers(ctx: ServiceContext): grpc.UntypedServiceImplementation {
  const { fleet } = ctx;
  return {
    // The same entries as GET /vehicles and /vehicles/status, data faults included.
    ListVehicles: listing(
      ctx,
      VEHICLE_SERVICE,
      'ListVehicles',
      () => (i) => fleet.vehicleAt(i),
      () => fleet.vehicleListing(),
    ),
    ListVehicleStatus: listing(
      ctx,
      VEHICLE_SERVICE,
      'ListVehicleStatus',
      (nowMs) => (i) => fleet.statusAt(i, nowMs),
      () => fleet.statusListing(ctx.now()),
    ),
    // Only a vehicle its listing holds, as GET /vehicles/{device_id} and /vehicles/status/{device_id}.
    GetVehicle: lookup(
      ctx,
      'GetVehicle',
      (id) => fleet.listedIndexOf(id),
      (i) => fleet.vehicleAt(i),
    ),
    GetVehicleStatus: lookup(
      ctx,
      'GetVehicleStatus',
      (id) => fleet.statusIndexOf(id, ctx.now()),
      (i) => fleet.statusAt(i, ctx.now()),
    ),
  };
}

/** `mobility.sandbox.v1.MaasVehicleService`: the MaaS listing. */
export function maasServiceHandlers(ctx: ServiceContext): grpc.UntypedServiceImplementation {
  return {
    ListVehicles: listing(
      ctx,
      MAAS_VEHICLE_SERVICE,
      'ListVehicles',
      (nowMs) => (i) => maasVehicleAt(ctx.fleet, i, nowMs),
    ),
  };
}
