// What a send was made of, as plain data: a REST request or a GRPC request of a file, ready to send again or to write
// as a program (Copy as Code from the results panel copies the result shown, whichever kind it is). Types only, and
// only the core's, so that the panels (src/webview) can hold them without importing the commands.
import type { ApiRequest, Environment } from '../../core/environment';
import type { GrpcFileCall } from '../../core/grpc';
import type { ResolvedGrpcFileRequest } from '../../core/http';
import type { RequestAssertions } from '../../core/contract';

/** A request ready to send, from the catalogue, a typed path or a request file. */
export interface PreparedRequest {
  environment: Environment;
  request: ApiRequest;
  /** For the panel's tab and header: "Trips · 2025-11-05T13". */
  title: string;
  /** An Authorization of the user's own (a request file's, under `# @authorization as-is`), sent as written. */
  authorization?: string;
  /** The catalogue values to remember for the next ask. */
  remember?: { endpointId: string; values: Record<string, string> };
  /** A request file's request: its assertions, checked in the results panel after the send. */
  assertions?: RequestAssertions;
}

/** A GRPC request of a file ready to call: its environment, what it sends, and who signs. */
export interface PreparedGrpcFileRequest {
  environment: Environment;
  resolved: ResolvedGrpcFileRequest;
  call: GrpcFileCall;
  /** For the panel's tab and header: "ListVehicles · VehicleService/ListVehicles". */
  title: string;
  requestName?: string;
  /** Its assertions, checked in the results panel after the call. */
  assertions?: RequestAssertions;
}

/** What a result shown in the panel was sent from: what Copy as Code writes a program of. */
export type CodeSource =
  { kind: 'http'; prepared: PreparedRequest } | { kind: 'grpc'; prepared: PreparedGrpcFileRequest };
