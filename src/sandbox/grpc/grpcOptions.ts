/** The gRPC side's option values, without grpc-js: the CLI and the HTTP side check them before the gRPC code loads. */

/** Which server reflection services the sandbox offers: `both` (the default), one version, or `none`. */
export type GrpcReflectionMode = 'v1' | 'v1alpha' | 'both' | 'none';
export const GRPC_REFLECTION_MODES: readonly GrpcReflectionMode[] = ['v1', 'v1alpha', 'both', 'none'];

export function isGrpcReflectionMode(value: unknown): value is GrpcReflectionMode {
  return GRPC_REFLECTION_MODES.includes(value as GrpcReflectionMode);
}
