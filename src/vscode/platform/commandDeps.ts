import type { ErrorCode } from '../../core/base';
import type * as vscode from 'vscode';
import type { ResultsPanelController } from '../panel/resultsController';
import type { ClientFactory, ClockMarks } from './clientFactory';
import type { CredentialStore } from '../environments/credentialStore';
import type { EnvironmentRegistry } from '../environments/environmentRegistry';
import type { GrpcService } from '../grpc/grpcService';
import type { Logger } from './logger';
import type { SandboxService } from '../sandbox/sandboxService';
import type { Settings } from './settings';
import type { TokenHistory } from '../tokens/tokenHistory';

/** The services every command is built from; `activate()` makes them once per window. */
export interface CommandDeps {
  context: vscode.ExtensionContext;
  log: Logger;
  settings: Settings;
  credentials: CredentialStore;
  environments: EnvironmentRegistry;
  sandbox: SandboxService;
  clients: ClientFactory;
  clockStore: ClockMarks;
  results: ResultsPanelController;
  /** gRPC schemas, templates and calls; its libraries load on first use. */
  grpc: GrpcService;
  /** The tokens issued in this window (jti, times, use), for the tree; texts in memory only. */
  tokenHistory: TokenHistory;
  /**
   * Per-window state: the deprecation warning said once per credential; the folders a Fetch Hours of this window is
   * still writing (its snapshot included), which Analyze Harvest names as still written.
   */
  session: { warnedDeprecated: Set<string>; harvesting: Set<string> };
}

/** What a tree item passes to a command, or a caller passes programmatically. */
export interface EnvironmentTarget {
  environmentId: string;
}

export interface CredentialTarget {
  credentialId: string;
}

/** Why a command ended without its result: a MobilityError's code, or one of the shell's own. */
export type OutcomeCode = ErrorCode | 'NO_NEXT_PAGE' | 'UNEXPECTED';

/** What every command returns, so callers (and tests) can tell success from a shown error. */
export type CommandOutcome<T = Record<string, unknown>> =
  ({ ok: true } & T) | { ok: false; code: OutcomeCode; message: string };
