// The stable codes of MobilityError (src/core/base/errors.ts), here so that the host–webview contract
// (ErrorView.code in protocol.ts) and the shell's outcomes can name them without importing the core.

/** Every code a MobilityError can carry. Clients and tests match on these, so codes are never renamed (HTTP_ABORTED became CANCELLED, the one code of cancellation, in 0.2). */
export const ERROR_CODES = [
  // cancellation: the user, a signal or a stop button stopped it; not a failure to show
  'CANCELLED',
  // credentials and keys
  'KEY_NOT_RECOGNISED',
  'KEY_ENCRYPTED',
  'KEY_PUBLIC_NOT_PRIVATE',
  'KEY_CERTIFICATE',
  'KEY_WRONG_CURVE',
  'KEY_WRONG_TYPE',
  'KEY_RSA_TOO_SMALL',
  'KEY_FILE_INVALID',
  'KID_MISSING',
  'ISSUER_INVALID',
  'CREDENTIAL_TYPE_UNKNOWN',
  'CREDENTIAL_TYPE_MISMATCH',
  'CREDENTIAL_NOT_FOR_API',
  // environments and tokens
  'BASE_URL_MISSING',
  'BASE_URL_INVALID',
  'AUDIENCE_INVALID',
  'LIFETIME_OUT_OF_RANGE',
  'CLOCK_STORE_FAILED',
  'CLOCK_BEHIND',
  'SIGNING_FAILED',
  'SIGNATURE_INVALID',
  // HTTP
  'HTTP_TIMEOUT',
  'HTTP_CONNECTION_REFUSED',
  'HTTP_DNS',
  'HTTP_TLS',
  'HTTP_NETWORK',
  'HTTP_TOO_LARGE',
  'HTTP_REDIRECT_CROSS_ORIGIN',
  // requests: paths, headers, endpoints and their parameters (refused before anything is signed)
  'PATH_INVALID',
  'HEADER_INVALID',
  'AUTHORIZATION_GIVEN',
  'ENDPOINT_UNKNOWN',
  'PARAMETER_MISSING',
  'PARAMETER_INVALID',
  'PARAMETER_UNKNOWN',
  // gRPC: schemas, methods and messages (refused before anything is signed), the connection
  'GRPC_TARGET_INVALID',
  'GRPC_SCHEMA_INVALID',
  'GRPC_REFLECTION_UNAVAILABLE',
  'GRPC_METHOD_UNKNOWN',
  'GRPC_MESSAGE_INVALID',
  'GRPC_METADATA_INVALID',
  'CODE_GRPC_INVALID',
  'CODE_GRPC_UNSUPPORTED',
  'GRPC_UNREACHABLE',
  'GRPC_TLS',
  'GRPC_FAILED',
  // harvest: an hour endpoint over a range of hours into a folder
  'HARVEST_FOLDER_IN_USE',
  'HARVEST_FOLDER_MISMATCH',
  'HARVEST_MANIFEST_INVALID',
  'HARVEST_WRITE_FAILED',
  'HARVEST_REFUSED',
  'HARVEST_SNAPSHOT_FAILED',
  // analysis: SQL and Parquet over a harvest folder
  'ANALYSIS_NOT_A_HARVEST',
  'ANALYSIS_DATA_INVALID',
  'ANALYSIS_QUERY_REFUSED',
  'ANALYSIS_QUERY_FAILED',
  'ANALYSIS_WRITE_FAILED',
  'ANALYSIS_ENGINE_FAILED',
  'ANALYSIS_OUT_OF_MEMORY',
  'ANALYSIS_OUT_OF_DISK',
  'ANALYSIS_TIMED_OUT',
  // geographies: an MDS Geography document (--geographies)
  'GEOGRAPHY_INVALID',
  'GEOGRAPHY_FETCH_FAILED',
  // local sandbox
  'TRUST_FILE_INVALID',
  'SANDBOX_OPTIONS_INVALID',
  'SANDBOX_START_FAILED',
  'SANDBOX_NOT_RUNNING',
  'DEMO_KEY_INVALID',
  // agents: the language-model tools and the MCP server (src/agent)
  'AGENT_TOOL_UNKNOWN',
  'AGENT_INPUT_INVALID',
  'AGENT_NETWORK_OFF',
  'AGENT_PRODUCTION_REFUSED',
  'AGENT_ENVIRONMENT_UNKNOWN',
  'AGENT_RESULT_UNKNOWN',
  // front ends
  'USAGE',
  'SECRET_STORAGE_FAILED',
  'NO_CREDENTIAL',
  'FILE_READ_FAILED',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

const KNOWN: ReadonlySet<string> = new Set(ERROR_CODES);

/** Whether `code` (from another process, say) is one of ours. */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && KNOWN.has(code);
}
