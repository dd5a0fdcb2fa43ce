// clock: the per-key issue clock that makes every token's `iat` strictly later than the last one of its key (spec
// rule 6), its file store shared by every process, the cross-process lock and per-key request queues, and clock skew
// against a server's Date. Imports only `base`: no transport, no tokens, never `vscode`.

export { clockSkewOf } from './clockSkew';
export { LOCK_STALE_MS, LOCK_UPDATE_MS } from './crossProcessLock';
export { defaultStateDir, keyIdDigest, keyIdHex, STATE_DIR_RULE, stateDirRuleText } from './stateDir';
export type { FileClockStore } from './fileClockStore';
export { IssueClock } from './issueClock';
export type { ClockPrecision, ClockStore } from './issueClock';
export { KeyedQueue } from './keyedQueue';
export type { KeyRequestQueue } from './keyedQueue';
export { expandHome, openSharedClock, stateDirOption } from './sharedClock';
export type { SharedClock } from './sharedClock';
export type { SharedKeyQueue } from './sharedKeyQueue';
