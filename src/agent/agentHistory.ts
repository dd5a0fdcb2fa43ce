// The results of this session's requests, by id (`r1`, `r2`…), so that a later call (explain_refusal) can name one
// without the agent ever holding the exchange (its token stays here, in memory, and never leaves).
import type { CredentialType } from '../core/auth';
import type { Environment } from '../core/environment';
import type { GrpcCallResult } from '../core/grpc';
import type { ApiResult } from '../core/http';

/** What a request an agent sent was, and what came back: a REST result, or a gRPC call's. */
export type AgentExchange = { result: ApiResult; grpc?: undefined } | { grpc: GrpcCallResult; result?: undefined };

/** One request an agent sent: where, with which type of credential, and what came back. */
export type AgentHistoryEntry = AgentExchange & {
  id: string;
  at: string;
  environment: Environment;
  credentialType?: CredentialType;
  /** What was asked for, as the answer names it (`vehicles`, `/vehicles?page_size=10`, `mobility.v1.Fleet/GetVehicle`). */
  target: string;
};

/** The last `capacity` results of a session, oldest first out. */
export class AgentHistory {
  private readonly entries: AgentHistoryEntry[] = [];
  private next = 1;

  constructor(private readonly capacity = 50) {}

  add(entry: AgentExchange & Omit<AgentHistoryEntry, 'id' | 'at' | 'result' | 'grpc'>): AgentHistoryEntry {
    const kept: AgentHistoryEntry = { ...entry, id: `r${this.next++}`, at: new Date().toISOString() };
    this.entries.push(kept);
    if (this.entries.length > this.capacity) this.entries.shift();
    return kept;
  }

  get(id: string): AgentHistoryEntry | undefined {
    return this.entries.find((e) => e.id === id);
  }

  /** The newest entry, or undefined in a session that sent nothing. */
  last(): AgentHistoryEntry | undefined {
    return this.entries[this.entries.length - 1];
  }

  ids(): string[] {
    return this.entries.map((e) => e.id);
  }
}
