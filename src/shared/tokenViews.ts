// The view models of tokens: one decoded token (its claims, times, findings and signature state) and two tokens
// compared claim by claim. A view never holds the raw token: the host keeps it and copies it on request.
import type { EnvironmentView, ResultSummary } from './resultSummary';

export interface TimeView {
  seconds: number;
  iso: string;
}

export interface FindingView {
  id: string;
  severity: 'error' | 'warning' | 'info';
  message: string;
  rule: string;
}

export type SignatureView = { state: 'verified' } | { state: 'failed'; reason: string } | { state: 'unchecked' };

export interface TokenView {
  /** Where the token comes from: "Generated for MDS staging", "Sent with page 1". */
  source: string;
  /** First 10 and last 6 characters. */
  preview: string;
  length: number;
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  /** The header and payload as JSON text, numbers as the token writes them (`1e400`, which `payload` holds as null). */
  headerText: string;
  payloadText: string;
  iat?: TimeView;
  nbf?: TimeView;
  exp?: TimeView;
  lifetimeSeconds?: number;
  findings: FindingView[];
  signature: SignatureView;
  /** The host holds the token and copies it on request. */
  canCopy: boolean;
  /** The token was already sent; a server that enforces spec 5.1 rule 4 refuses it again. */
  alreadyUsed: boolean;
}

export interface TokenResultView {
  kind: 'token';
  id: string;
  title: string;
  createdAt: number;
  environment?: EnvironmentView;
  token: TokenView;
  summary: ResultSummary;
}

/** One claim (or header parameter) of two compared tokens. Values are JSON text; absent is undefined. */
export interface ClaimDiffView {
  part: 'header' | 'payload';
  name: string;
  left?: string;
  right?: string;
  state: 'same' | 'different' | 'onlyLeft' | 'onlyRight';
  /** Why this difference can decide "one works, the other not", when it can. */
  note?: string;
}

/** Two tokens side by side: "why does this one work and that one not". */
export interface CompareResultView {
  kind: 'compare';
  id: string;
  title: string;
  createdAt: number;
  environment?: EnvironmentView;
  left: TokenView;
  right: TokenView;
  claims: ClaimDiffView[];
  /** How many rows differ. */
  differences: number;
  summary: ResultSummary;
}
