// Copy as Code on a GRPC request (of a `.http` file, a method of the tree, or the result shown): the call as a Python (grpcio) or TypeScript (@grpc/grpc-js)
// program that signs a fresh token for it, built from the schema the request is sent with (its `proto <` files, the
// environment's, or what reflection gave, saved as a descriptor set), the message checked against it before anything is copied.
import * as vscode from 'vscode';
import type { Credential } from '../../core/auth';
import type { CodeLanguage, GrpcCodeCall } from '../../core/codegen';
import type { Environment } from '../../core/environment';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { errorMessage, isMobilityError, MobilityError } from '../../core/base';
import type { StoredCredentialInfo } from '../environments/credentialStore';
import type { CommandDeps } from '../platform/commandDeps';
import { loadCodegen } from '../codegen/codegenLoader';
import type { PreparedGrpcFileRequest } from '../requests/preparedRequests';
import { resolveCredential } from '../environments/pickers';
import { Cancelled } from '../platform/registerCommand';
import { writeWhole } from '../platform/writeWhole';

/** What Copy as Code wrote for a GRPC request: the program, and the descriptor set it saved for it (a server known by reflection). */
export interface GrpcFileCode {
  code: string;
  language: CodeLanguage;
  credentialType: Credential['type'];
  /** The credential that signs the program's tokens (the demo credential's program is told where its key file is). */
  credentialInfo: StoredCredentialInfo;
  /** The file the server's schema was saved to, which the program loads. */
  savedProtoset?: string;
}

/**
 * The program of the GRPC request `prepared` in `language` (asked when not given). Its schema: the request's or the
 * environment's .proto files, the sandbox's own, the environment's descriptor set; else, for a server known by
 * reflection only (as a provider that publishes no .proto), the schema reflection gave, saved as a descriptor set at
 * `protosetPath` or where the user picks.
 */
export async function grpcFileCode(
  deps: CommandDeps,
  prepared: PreparedGrpcFileRequest,
  language: CodeLanguage | undefined,
  protosetPath?: string,
): Promise<GrpcFileCode> {
  const { generateCode, grpcCodeProgramFor, grpcLanguageRefusal } = loadCodegen();
  const picked = language ?? (await pickGrpcLanguage());
  const refusal = grpcLanguageRefusal(picked);
  if (refusal) throw refusal;
  const { environment, call, resolved } = prepared;
  if (resolved.messages.length !== 1) {
    throw new MobilityError(
      'CODE_GRPC_INVALID',
      vscode.l10n.t(
        'Copy as Code writes a program for one request message, and this request has {0}.',
        resolved.messages.length,
      ),
    );
  }
  const { credential, info } = await resolveCredential(deps, environment);
  const protos = programProtos(prepared);
  let schema: Pick<GrpcCodeCall, 'protoFiles' | 'importPaths' | 'protoset'>;
  let found: Awaited<ReturnType<typeof deps.grpc.fileCodeShape>>;
  let shape: Awaited<ReturnType<typeof deps.grpc.fileCodeShape>>['shape'];
  let savedProtoset: string | undefined;
  if (protos) {
    // The shape (which file defines the service and the request type) comes from the files the program loads.
    const fromFiles = call.endpoint.protoFiles?.length
      ? call
      : {
          ...call,
          endpoint: {
            target: call.endpoint.target,
            plaintext: call.endpoint.plaintext,
            protoFiles: protos.protoFiles,
            importPaths: protos.importPaths,
          },
          ownProtos: true,
        };
    found = await deps.grpc.fileCodeShape(environment, undefined, fromFiles);
    // Shipped files (the sandbox's) as copies that outlive an update, the shape's files with them.
    const copies = protos.sandbox ? await stableProtos(deps, protos) : { protos, stable: (file: string) => file };
    schema = copies.protos;
    const { serviceFile, inputFile } = found.shape;
    shape = {
      ...found.shape,
      ...(serviceFile ? { serviceFile: copies.stable(serviceFile) } : {}),
      ...(inputFile ? { inputFile: copies.stable(inputFile) } : {}),
    };
  } else {
    // The schema the call is sent with: the environment's descriptor set, or server reflection.
    found = await deps.grpc.fileCodeShape(environment, deps.grpc.auth(environment, credential), call);
    const file =
      call.endpoint.protoset ?? (savedProtoset = await saveProtoset(environment, found.protoset(), protosetPath));
    schema = { protoFiles: [], protoset: { file, files: found.descriptorFiles } };
    shape = found.shape;
  }
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
      ...schema,
    },
    deps.settings.lifetimeSeconds,
  );
  return {
    code: generateCode(picked, program),
    language: picked,
    credentialType: credential.type,
    credentialInfo: info,
    ...(savedProtoset ? { savedProtoset } : {}),
  };
}

/**
 * The .proto files the program loads: the request's own or its environment's; else, for a call to the environment's
 * own target read by reflection, the files the environment knows its server by (the sandbox's).
 */
function programProtos({
  environment,
  call,
}: PreparedGrpcFileRequest): { protoFiles: string[]; importPaths: string[]; sandbox?: boolean } | undefined {
  if (call.endpoint.protoFiles?.length)
    return { protoFiles: call.endpoint.protoFiles, importPaths: call.endpoint.importPaths ?? [] };
  const own = environment.grpc;
  if (!call.ownProtos && !call.endpoint.protoset && own?.codeProtos && own.target === call.endpoint.target)
    return { ...own.codeProtos, sandbox: true };
  return undefined;
}

/**
 * The .proto files as the program names them. Those shipped inside the extension (the sandbox's, in the versioned
 * folder `…-0.1.0/dist/proto`) are gone after the next update: the program gets a copy in the extension's global
 * storage, whose path stays, refreshed on every copy. The user's own files stay where they are.
 */
async function stableProtos(
  deps: CommandDeps,
  protos: { protoFiles: string[]; importPaths: string[] },
): Promise<{ protos: { protoFiles: string[]; importPaths: string[] }; stable: (file: string) => string }> {
  const extensionDir = deps.context.extensionUri.fsPath;
  const shipped = (file: string) => {
    const relative = path.relative(extensionDir, file);
    return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
  };
  if (![...protos.protoFiles, ...protos.importPaths].some(shipped)) return { protos, stable: (file) => file };
  const copies = path.join(deps.context.globalStorageUri.fsPath, 'proto');
  const stable = (file: string) => (shipped(file) ? path.join(copies, path.relative(extensionDir, file)) : file);
  try {
    // Each shipped import folder whole (the files it imports come along), then any shipped file outside them.
    for (const folder of protos.importPaths.filter(shipped))
      await fs.promises.cp(folder, stable(folder), { recursive: true, force: true });
    for (const file of protos.protoFiles.filter(shipped)) {
      await fs.promises.mkdir(path.dirname(stable(file)), { recursive: true });
      await fs.promises.copyFile(file, stable(file));
    }
  } catch (err) {
    throw new MobilityError(
      'USAGE',
      vscode.l10n.t(
        "Could not copy the sandbox's .proto files to {0} for the program: {1}.",
        copies,
        errorMessage(err),
      ),
    );
  }
  return { protos: { protoFiles: protos.protoFiles.map(stable), importPaths: protos.importPaths.map(stable) }, stable };
}

/**
 * Saves the schema server reflection gave as a descriptor set, for the program to load: at `given`, else where the
 * user picks (first offered: the workspace folder, named after the environment). Returns the file's path.
 */
async function saveProtoset(environment: Environment, bytes: Uint8Array, given: string | undefined): Promise<string> {
  let target = given !== undefined ? vscode.Uri.file(given) : undefined;
  if (!target) {
    const folder =
      vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri ?? vscode.Uri.file(os.homedir());
    target = await vscode.window.showSaveDialog({
      title: vscode.l10n.t(
        '{0} has no .proto files: save the schema its server gave by reflection, for the program to load',
        environment.name,
      ),
      defaultUri: vscode.Uri.joinPath(folder, `${environment.id.replace(/[^\w.-]+/g, '-')}.protoset`),
      filters: { [vscode.l10n.t('Descriptor set')]: ['protoset', 'pb', 'bin'] },
      saveLabel: vscode.l10n.t('Save Schema'),
    });
    if (!target) throw new Cancelled();
  }
  try {
    await writeWhole(target, bytes);
  } catch (err) {
    if (isMobilityError(err)) throw err;
    throw new MobilityError(
      'USAGE',
      vscode.l10n.t(
        'Could not save the schema to {0}: {1}. Pick a folder you can write to.',
        target.fsPath,
        errorMessage(err),
      ),
    );
  }
  return target.fsPath;
}

async function pickGrpcLanguage(): Promise<CodeLanguage> {
  const { CODE_LANGUAGE_INFO, GRPC_CODE_LANGUAGES } = loadCodegen();
  const picked = await vscode.window.showQuickPick(
    GRPC_CODE_LANGUAGES.map((language) => ({
      label: CODE_LANGUAGE_INFO[language].grpcLabel ?? CODE_LANGUAGE_INFO[language].label,
      language,
    })),
    { placeHolder: vscode.l10n.t('Copy the gRPC call as a program in which language?'), ignoreFocusOut: true },
  );
  if (!picked) throw new Cancelled();
  return picked.language;
}
