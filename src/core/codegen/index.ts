// codegen: complete programs in Python, TypeScript, Go, Java and shell that send a request (and, in Python and
// TypeScript, a gRPC call) the way spec 5 wants
// (a fresh token per request and page, a per-key iat that strictly increases across threads, and in Python, Go and
// shell across processes through one flock'd clock file per key; no secret in the program). Imports `base`, `environment`, `auth` and `mds`; no transport, never `vscode`.

export {
  CODE_LANGUAGES,
  DEFAULT_CODE_LIFETIME,
  KEY_FILE_VARIABLE,
  KEY_ID_VARIABLE,
  codeProgramFor,
} from './codeRequest';
export type { CodeLanguage, CodeProgram } from './codeRequest';
export { CODE_LANGUAGE_INFO, generateCode, GRPC_CODE_LANGUAGES, grpcLanguageRefusal } from './generateCode';
export { grpcCodeProgramFor } from './grpcCodeRequest';
export type { GrpcCodeCall } from './grpcCodeRequest';
export type { GrpcCodeRequest } from './codeRequest';
