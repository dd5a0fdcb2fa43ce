// The entry of dist/codegen.js (esbuild.js): Copy as Code's program writers in five languages, a bundle of its own
// that the shell loads the first time Copy as Code runs (src/vscode/codegen/copyAsCode.ts), so that activation loads none
// of it. Each bundle has its own copy of @vscode/l10n: this one is configured as it loads.
import { configureHostL10n } from '../panel/l10nBundle';

configureHostL10n();

export {
  CODE_LANGUAGE_INFO,
  CODE_LANGUAGES,
  codeProgramFor,
  generateCode,
  GRPC_CODE_LANGUAGES,
  grpcCodeProgramFor,
  grpcLanguageRefusal,
  KEY_FILE_VARIABLE,
  KEY_ID_VARIABLE,
} from '../../core/codegen';
