// The shape of one tool an agent may call, and what a surface (VS Code's language-model tools, the MCP server) gives
// the tools: environments and credentials by name, the signing clock, the history of results, and what is allowed.
import type { Credential, TokenIssuer } from '../core/auth';
import type { FileClockStore, KeyRequestQueue } from '../core/clock';
import type { Environment } from '../core/environment';
import type { GrpcCallRequest, GrpcCallResult } from '../core/grpc';
import type { AgentHistory, AgentHistoryEntry } from './agentHistory';

/** MCP's tool annotations (VS Code reads the same two hints from the manifest's tags). True to what the tool does. */
export interface ToolAnnotations {
  /** The tool changes nothing outside the answer it gives (no file written, no request sent). */
  readOnlyHint: boolean;
  /** The tool talks to something outside this computer (a provider's server). */
  openWorldHint: boolean;
  /** The tool may delete or overwrite data: never true here (a harvest only adds hours). */
  destructiveHint: boolean;
}

/** A JSON Schema (draft 7, as MCP and VS Code take it) of a tool's input: always an object. */
export interface ToolInputSchema {
  type: 'object';
  properties: Record<string, unknown>;
  required?: string[];
  additionalProperties: false;
}

/** Progress of a long tool: `done` of `total` steps (total unknown: undefined), and what is happening now. */
export type ToolProgress = (done: number, total: number | undefined, message: string) => void;

/** What a call gets besides its input: a stop signal and a progress reporter. */
export interface ToolCall {
  signal?: AbortSignal;
  progress?: ToolProgress;
}

/** An environment an agent may name, with the name of its credential (never the credential). */
export interface AgentEnvironment {
  environment: Environment;
  /** How the user calls the bound credential (a SecretStorage label, a file name): undefined when none is bound. */
  credentialName?: string;
}

/**
 * gRPC calls as the surface makes them (the core's channels and schemas: the environment's `.proto` files or
 * protoset, else server reflection), each call with a fresh token of `credential` on the shared per-key clock.
 */
export interface AgentGrpc {
  call(environment: Environment, credential: Credential, request: GrpcCallRequest): Promise<GrpcCallResult>;
}

/** What the surface gives every tool. */
export interface AgentContext {
  environments(): Promise<AgentEnvironment[]>;
  /** The credential bound to an environment, read where it is kept (SecretStorage, the flags' key file). */
  credential(environmentId: string): Promise<Credential | undefined>;
  /** The issuer on the shared per-key clock, the per-key request queue and the clock's store (for the refusal doctor). */
  signing(): { issuer: TokenIssuer; queue?: KeyRequestQueue; store?: Pick<FileClockStore, 'readMarks'> };
  history: AgentHistory;
  /** gRPC calls to an environment's gRPC target (`send_request` with `grpc_method`). */
  grpc?: AgentGrpc;
  /** The network tools may run (MCP: --allow-network; VS Code: always, each call confirmed by the user). */
  allowNetwork: boolean;
  /** A production environment may be reached (MCP: --allow-production; VS Code: a setting). */
  allowProduction: boolean;
  /** Coordinates of raw rows as they came, not rounded to about 100 m. */
  preciseLocations?: boolean;
  /** Relative paths (harvest folders, request files) are read from here. */
  root: string;
  /** A request's result, for the surface to show (VS Code: the results panel); returns the id the panel knows it by. */
  onResult?(entry: AgentHistoryEntry): string | undefined;
}

/** One tool: its name (`{verb}_{noun}`), what a model reads about it, its input's schema, and what it does. */
export interface AgentTool {
  name: string;
  /** A title for people (VS Code's confirmation, MCP's `title`). */
  title: string;
  /** What the tool does, written for a model: when to use it, what it returns. */
  description: string;
  inputSchema: ToolInputSchema;
  annotations: ToolAnnotations;
  /** Sends requests to a provider: off unless the surface allows the network, and confirmed in VS Code. */
  network: boolean;
  run(input: Record<string, unknown>, context: AgentContext, call: ToolCall): Promise<unknown>;
}

/** A read-only tool on this computer. */
export const LOCAL_READ_ONLY: ToolAnnotations = { readOnlyHint: true, openWorldHint: false, destructiveHint: false };
