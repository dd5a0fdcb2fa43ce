/**
 * Copy as Code: complete programs in other languages (Python, TypeScript, Go, Java, shell) that
 * sign a fresh token for every request by spec 5 and send it. This folder owns the description of
 * a request and credential as a program needs them (`codeRequest.ts`: nothing secret) and one
 * generator per language. It must not import `vscode`, nor any transport (HTTP client, gRPC): it
 * only writes text. Other folders use it through this file only.
 */
export type { CodeCredential, CodeLanguage, CodeProgram, CodeRequest, RestCodeRequest } from './codeRequest';
export { CODE_LANGUAGES, codeCredentialOf, codeProgramFor, DEFAULT_CODE_LIFETIME, KEY_FILE_VARIABLE, KEY_ID_VARIABLE, WORKERS_VARIABLE } from './codeRequest';
export type { CodeLanguageInfo } from './generateCode';
export { CODE_LANGUAGE_INFO, generateCode } from './generateCode';
