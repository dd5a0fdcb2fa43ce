// What a gRPC call's answer is shown with in the results panel: the argument of showGrpcResult.
import type { RequestAssertions } from '../../core/contract';
import type { Environment } from '../../core/environment';
import type { GrpcCallResult } from '../../core/grpc';
import type { CodeSource } from '../requests/preparedRequests';
import type { RefusalContext } from '../../results/tokens/refusalView';

/** What a gRPC call's answer is shown with (Call gRPC Method, a `.http` GRPC request). */
export interface GrpcResultArgs {
  environment: Environment;
  /** The call's outcome; its `token` stays host-side (the panel shows the decoded claims only). */
  result: GrpcCallResult;
  /** For the tab and the header: "VehicleService/ListVehicles". */
  title: string;
  /** The target called, "127.0.0.1:50051". */
  target: string;
  credentialLabel?: string;
  /** "Run again": the same call with a fresh token. */
  runAgain?: () => Promise<unknown>;
  /** "Copy as grpcurl": a ready-to-paste command (token in a shell variable on its own line). */
  grpcurlCommand?: () => Promise<string>;
  /** For an UNAUTHENTICATED / PERMISSION_DENIED explanation: credential type and the key's clock mark. */
  refusal?: Partial<RefusalContext>;
  /** The request sent, for Copy as Code while this result is shown. */
  codeSource?: CodeSource;
  /** Sent from a request file: its assertions, checked against the answer and listed in the header. */
  assertions?: RequestAssertions;
  /** False: joins the panel's history without bringing the panel to the front (a test run's answers). */
  reveal?: boolean;
}
