// One header or metadata row as the panel shows it (REST headers, gRPC metadata). Types only.
export interface HeaderView {
  name: string;
  value: string;
  /** True for `Authorization`: the value is the shortened token, never the token. */
  secret?: boolean;
}
