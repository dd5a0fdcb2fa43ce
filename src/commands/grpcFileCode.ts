// Copy as Code on a GRPC request (of a `.http` file, a method of the tree, or the result shown): the call as a Python (grpcio) or TypeScript (@grpc/grpc-js)
// program that signs a fresh token for it, built from the schema the request is sent with (its `proto <` files, or
// the environment's), the message checked against it before anything is copied.
import * as vscode from 'vscode';
import type { Credential } from '../core/auth';
import type { CodeLanguage } from '../core/codegen';
import { MobilityError } from '../core/base';
import type { CommandDeps } from './commandDeps';
import { loadCodegen } from './codegenLoader';
import type { PreparedGrpcFileRequest } from './preparedRequests';
import { resolveCredential } from './pickers';
import { Cancelled } from './registerCommand';

/** The program of the GRPC request `prepared` in `language` (asked when not given). */
export async function grpcFileCode(deps: CommandDeps, prepared: PreparedGrpcFileRequest, language: CodeLanguage | undefined): Promise<{ code: string; language: CodeLanguage; credentialType: Credential['type'] }> {
  const { generateCode, grpcCodeProgramFor, grpcLanguageRefusal } = loadCodegen();
  const picked = language ?? (await pickGrpcLanguage());
  const refusal = grpcLanguageRefusal(picked);
  if (refusal) throw refusal;
  const { environment, call, resolved } = prepared;
  const protos = programProtos(prepared);
  if (!protos) {
    throw new MobilityError('CODE_GRPC_INVALID', vscode.l10n.t('Copy as Code needs the .proto files that define {0}: the program loads (TypeScript) or compiles (Python) them. Add "proto < ./service.proto" above the request (paths relative to the file), or set "protoFiles" in the gRPC settings of {1}.', resolved.method, environment.name));
  }
  if (resolved.messages.length !== 1) {
    throw new MobilityError('CODE_GRPC_INVALID', vscode.l10n.t('Copy as Code writes a program for one request message, and this request has {0}.', resolved.messages.length));
  }
  const { credential } = await resolveCredential(deps, environment);
  // The shape (which file defines the service and the request type) comes from the files the program loads.
  const fromFiles = call.endpoint.protoFiles?.length ? call : { ...call, endpoint: { target: call.endpoint.target, plaintext: call.endpoint.plaintext, ...protos }, ownProtos: true };
  const shape = await deps.grpc.fileCodeShape(environment, undefined, fromFiles);
  const program = grpcCodeProgramFor(
    environment,
    credential,
    {
      ...shape,
      target: call.endpoint.target,
      plaintext: call.endpoint.plaintext === true,
      caFile: call.endpoint.caFile,
      message: resolved.messages[0],
      metadata: resolved.metadata,
      ...protos,
    },
    deps.settings.lifetimeSeconds,
  );
  return { code: generateCode(picked, program), language: picked, credentialType: credential.type };
}

/**
 * The .proto files the program loads: the request's own or its environment's; else, for a call to the environment's
 * own target read by reflection, the files the environment knows its server by (the sandbox's).
 */
function programProtos({ environment, call }: PreparedGrpcFileRequest): { protoFiles: string[]; importPaths: string[] } | undefined {
  if (call.endpoint.protoFiles?.length) return { protoFiles: call.endpoint.protoFiles, importPaths: call.endpoint.importPaths ?? [] };
  const own = environment.grpc;
  if (!call.ownProtos && !call.endpoint.protoset && own?.codeProtos && own.target === call.endpoint.target) return own.codeProtos;
  return undefined;
}

async function pickGrpcLanguage(): Promise<CodeLanguage> {
  const { CODE_LANGUAGE_INFO, GRPC_CODE_LANGUAGES } = loadCodegen();
  const picked = await vscode.window.showQuickPick(
    GRPC_CODE_LANGUAGES.map((language) => ({ label: CODE_LANGUAGE_INFO[language].grpcLabel ?? CODE_LANGUAGE_INFO[language].label, language })),
    { placeHolder: vscode.l10n.t('Copy the gRPC call as a program in which language?') },
  );
  if (!picked) throw new Cancelled();
  return picked.language;
}
