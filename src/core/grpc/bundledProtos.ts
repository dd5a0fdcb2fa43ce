// The .proto files the client itself needs, bundled as text: the reflection protocol (as
// @grpc/reflection ships it) and google.rpc.Status with its error detail types (proto/google/rpc).
import * as protobuf from 'protobufjs';
import reflectionV1 from '@grpc/reflection/build/proto/grpc/reflection/v1/reflection.proto';
import reflectionV1alpha from '@grpc/reflection/build/proto/grpc/reflection/v1alpha/reflection.proto';
import rpcStatus from '../../../proto/google/rpc/status.proto';
import rpcErrorDetails from '../../../proto/google/rpc/error_details.proto';

/** Parses bundled .proto texts into one root, with protobufjs's well-known types for their imports. */
function rootOf(texts: string[], wellKnown: string[]): protobuf.Root {
  const root = new protobuf.Root();
  for (const name of wellKnown) {
    const json = protobuf.common.get(`google/protobuf/${name}.proto`);
    if (json?.nested) root.addJSON(json.nested);
  }
  for (const text of texts) protobuf.parse(text, root, { keepCase: true });
  root.resolveAll();
  return root;
}

let reflectionRoot: protobuf.Root | undefined;
let statusRoot: protobuf.Root | undefined;

/** `grpc.reflection.v1` and `grpc.reflection.v1alpha`, parsed once. */
export function reflectionProtos(): protobuf.Root {
  reflectionRoot ??= rootOf([reflectionV1, reflectionV1alpha], []);
  return reflectionRoot;
}

/** `google.rpc.Status`, the `google.rpc` error details and `google.protobuf.Any`/`Duration`, parsed once. */
export function statusProtos(): protobuf.Root {
  statusRoot ??= rootOf([rpcStatus, rpcErrorDetails], ['any', 'duration']);
  return statusRoot;
}
