// The entry of dist/grpc.js (esbuild.js): the gRPC core with @grpc/grpc-js and protobufjs, a bundle of its own that
// the shell loads the first time a gRPC feature is used (src/vscode/grpc/grpcService.ts), so that activation loads none
// of it. Each bundle has its own copy of @vscode/l10n: this one is configured as it loads.
import { configureHostL10n } from '../panel/l10nBundle';

configureHostL10n();

export {
  describeSymbol,
  descriptorFileNames,
  encodeMessage,
  findType,
  grpcFileCall,
  GrpcSessions,
  methodCodeShape,
  parseMessagesJson,
  protosetOf,
  reflectionWantsAuth,
} from '../../core/grpc';
