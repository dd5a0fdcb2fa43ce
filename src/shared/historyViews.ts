// The view models of the panel's history: every send of this session kept as one entry (newest first), and two
// entries compared side by side. Nothing secret: the token behind an entry shows only its `jti`, never the
// token or its key id.

/** How many results of a panel's history keep everything (rows, pages, tokens host-side); older ones keep their entry only. */
export const HISTORY_KEPT_IN_FULL = 5;
/** How many entries a panel's history lists at most. */
export const HISTORY_MAX_ENTRIES = 50;

/** The claims of the token behind a result that the header line shows: its id and its issue and expiry times. */
export interface TokenFactsView {
  /** The page the token was sent with (1-based); 1 unless the result has pages of their own. */
  pageNumber: number;
  jti?: string;
  /** ISO 8601 UTC. */
  iat?: string;
  exp?: string;
}

/** How a gRPC call in the history ended: its status name, and whether that is OK. */
export interface GrpcStatusMark {
  status: string;
  ok: boolean;
}

/** One send in the history. */
export interface HistoryEntryView {
  /** The result's id: "show it again" and "compare" name the entry by it. */
  id: string;
  kind: 'listing' | 'requestError';
  title: string;
  method: string;
  /** The path and query of the first request, without scheme and host: `/mds/trips?end_time=2025-11-05T13`. */
  path: string;
  environmentName: string;
  createdAt: number;
  /** The HTTP status of the last page; absent when the request got no answer. */
  status?: number;
  statusText?: string;
  /** A gRPC call's status instead of an HTTP one: `OK`, `UNAUTHENTICATED`… */
  grpc?: GrpcStatusMark;
  /** The `jti` of the first page's token. */
  jti?: string;
  /** The result's summary line. */
  line: string;
  /** False once the entry keeps only its summary (older than the last few results): it can be run again, not shown or compared. */
  kept: boolean;
  /** True when its request can be sent again from the entry (with a fresh token: a new result, on top). */
  canRunAgain?: boolean;
}

/** One side of a comparison. */
export interface CompareSideView {
  id: string;
  title: string;
  method: string;
  path: string;
  createdAt: number;
  status?: number;
  statusText?: string;
  grpc?: GrpcStatusMark;
  /** All pages' time, ms. */
  totalMs: number;
  pageCount: number;
  itemCount: number;
  /** ['trip', 'trips']. */
  noun: [string, string];
  jti?: string;
}

/** A response header whose value differs between the two sides (absent: the side has no such header). */
export interface HeaderDiffView {
  name: string;
  left?: string;
  right?: string;
}

/** Items matched by id between the two sides: up to a few ids each, and the full counts. */
export interface ItemDiffView {
  /** Whether the two tables share an id column; when not, only the counts compare. */
  comparable: boolean;
  /** The id column's label ("Trip ID"). */
  idLabel?: string;
  added: string[];
  removed: string[];
  changed: string[];
  addedCount: number;
  removedCount: number;
  changedCount: number;
  sameCount: number;
}

/** Two results of the history side by side: the older on the left, the newer on the right. */
export interface HistoryCompareView {
  left: CompareSideView;
  right: CompareSideView;
  headers: HeaderDiffView[];
  items: ItemDiffView;
}
