/**
 * Where the sandbox's `.proto` files are at run time. esbuild.js copies the repository's `proto/`
 * folder, and the gRPC reflection protos of @grpc/reflection, to `dist/proto/`; bundles in `dist/`
 * find it next to them, test bundles (`out/test/unit/`) in the `dist/` of an enclosing folder.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { MobilityError } from '../../core/base';

/** The sandbox's own proto files, relative to the proto root. */
export const SANDBOX_PROTO_FILES = ['mobility/sandbox/v1/vehicles.proto', 'mobility/sandbox/v1/maas.proto'] as const;

/** The google.rpc protos of the error details, relative to the proto root. */
export const STATUS_PROTO_FILES = ['google/rpc/status.proto', 'google/rpc/error_details.proto'] as const;

const MARKER = SANDBOX_PROTO_FILES[0];
let found: string | undefined;

/** The folder holding the proto files; throws a clear error when the build did not copy them. */
export function protoRoot(): string {
  if (found) return found;
  const candidates = [path.join(__dirname, 'proto')];
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    candidates.push(path.join(dir, 'dist', 'proto'));
    if (path.dirname(dir) === dir) break;
  }
  found = candidates.find((dir) => existsSync(path.join(dir, MARKER)));
  if (!found) {
    throw new MobilityError(
      'SANDBOX_START_FAILED',
      `The sandbox's gRPC side could not find its .proto files (looked for ${MARKER} in ${candidates.slice(0, 3).join(', ')}, …). Build with "node esbuild.js", which copies them to dist/proto.`,
    );
  }
  return found;
}

/** The absolute path of a proto file under the proto root (used by esbuild.js for @grpc/reflection's own protos). */
export function protoFile(relative: string): string {
  return path.join(protoRoot(), relative);
}
