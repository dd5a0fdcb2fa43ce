// The view model of a gRPC call's answer in the results panel: how the call ended (status, google.rpc.Status details),
// the metadata both ways and the timing. Its messages fill the listing's Body (table, JSON, Raw, Positions) as a REST
// body does; the token sent shows in the listing's token view (decoded claims only). Types only; imported by both bundles.
import type { HeaderView } from './headerView';

/** What the panel shows of one gRPC call besides its messages. Nothing secret: the token stays host-side. */
export interface GrpcCallView {
  /** The target called: `127.0.0.1:50051`. */
  target: string;
  /** `/package.Service/Method`. */
  method: string;
  /** `unary`, `server streaming`, `client streaming` or `bidirectional streaming`, as shown. */
  kind: string;
  inputType: string;
  outputType: string;
  status: {
    code: number;
    /** `OK`, `UNAUTHENTICATED`, … */
    name: string;
    message: string;
    ok: boolean;
    /** What the code means in plain words. */
    meaning: string;
  };
  /** The google.rpc.Status details, each with its `@type`, as JSON. */
  details: Record<string, unknown>[];
  /** The response headers (initial metadata). */
  headers: HeaderView[];
  trailers: HeaderView[];
  /** The metadata sent, `authorization` shortened and marked secret. */
  requestMetadata: HeaderView[];
  timings: { queuedMs: number; signMs: number; totalMs: number };
  messageCount: number;
  /** The body is `{"messages": [...]}` (a server stream); otherwise it is the one answer message itself. */
  streamed: boolean;
  canRunAgain: boolean;
  /** "Copy as grpcurl": the host builds the command with a fresh token; the webview never sees it. */
  canCopyGrpcurl: boolean;
}
