// One side of the gRPC-vs-REST fleet benchmark, alone in its process so that its peak RSS is its own. Both sides load
// this same bundle (grpc-js, protobufjs and the REST client alike). Started by grpcStream.ts over IPC; never run by hand.
import { GrpcSessions } from '../src/core/grpc';
import { answerParentOnce, credentialFromPem } from './benchKeys';
import { LIST_VEHICLES, authOf, benchSigning, endpointOf } from './grpcPlain';
import type { GrpcFleetChildReply, GrpcFleetChildRequest } from './grpcStream';
import { benchClient, environmentOf } from './requests';

/** Every vehicle in one ListVehicles stream through the core: the schema by server reflection, then the call. */
async function grpcSide(request: GrpcFleetChildRequest): Promise<Omit<GrpcFleetChildReply, 'maxRssKb'>> {
  const credential = credentialFromPem('ES256', request.pem, request.kid);
  const sessions = new GrpcSessions();
  const endpoint = endpointOf(request.env);
  const auth = authOf(request.env, credential, benchSigning());
  const start = performance.now();
  await sessions.schema(request.env.id, endpoint);
  const schemaMs = performance.now() - start;
  const result = await sessions.call(request.env.id, endpoint, auth, { method: LIST_VEHICLES, messages: [{}] });
  const ms = performance.now() - start;
  sessions.forget();
  if (result.status.code !== 0)
    throw new Error(`The gRPC listing ended ${result.status.name}: ${result.status.message}`);
  return { ms, schemaMs, vehicles: result.messages.length };
}

/** Every vehicle in pages of the sandbox's size (1000) through `ApiClient.listVehicles`. */
async function restSide(request: GrpcFleetChildRequest): Promise<Omit<GrpcFleetChildReply, 'maxRssKb'>> {
  const credential = credentialFromPem('ES256', request.pem, request.kid);
  const client = benchClient();
  const start = performance.now();
  const listing = await client.listVehicles(environmentOf(request.env), credential, { allPages: true });
  const ms = performance.now() - start;
  if (listing.stoppedBecause) throw new Error(`The REST listing stopped early: ${listing.stoppedBecause}`);
  return { ms, schemaMs: 0, vehicles: listing.items.length };
}

answerParentOnce((request: GrpcFleetChildRequest) =>
  request.side === 'idle'
    ? Promise.resolve({ ms: 0, schemaMs: 0, vehicles: 0 })
    : request.side === 'grpc'
      ? grpcSide(request)
      : restSide(request),
);
