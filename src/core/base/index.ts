// base: what every core domain may use: the typed error every domain throws (`MobilityError` with a stable code),
// redaction of secrets in text, durations and articles in words, and the JSON nesting guard.
// Imports no other domain (only src/shared's error codes); never `vscode`.

export { MobilityError, errorMessage, isCancelled, isMobilityError } from './errors';
export type { ErrorCode } from './errors';
export { MAX_JSON_DEPTH, jsonNestsDeeperThan, valueNestsDeeperThan } from './jsonDepth';
export { maskKeyId, maskKidIn, ownSecretsMasker, redactSecrets, shortenToken, withoutOwnSecrets } from './redact';
export type { OwnSecrets } from './redact';
export { describeExpiry, describeIssued, describeNotBefore, describeRelative, formatDuration } from './relativeTime';
export { shellQuote } from './shellQuote';
export { secondsWithSpan, withArticle } from './wording';
export { junitXml } from './junitXml';
export type { JunitCase, JunitSuite } from './junitXml';
