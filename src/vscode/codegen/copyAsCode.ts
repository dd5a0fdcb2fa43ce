import path from 'node:path';
import * as vscode from 'vscode';
import type { Environment } from '../../core/environment';
import type { StoredCredentialInfo } from '../environments/credentialStore';
import type { CodeLanguage } from '../../core/codegen';
import { MobilityError } from '../../core/base';
import { RESULTS_VIEW_TYPE } from '../../shared/protocol';
import type { CommandDeps, CommandOutcome } from '../platform/commandDeps';
import { COMMANDS } from '../platform/commandIds';
import { resolveCredential, resolveEnvironment } from '../environments/pickers';
import { Cancelled, registerCommand } from '../platform/registerCommand';
import { loadCodegen } from './codegenLoader';
import { grpcFileCode } from '../grpc/grpcFileCode';
import { prepareGrpcFileRequest } from '../grpc/grpcFileRequests';
import type { CodeSource, PreparedGrpcFileRequest, PreparedRequest } from '../requests/preparedRequests';
import type { FileRequestArgs } from '../requests/requestFileAt';
import { fileRequestAt, requestFileInFront } from '../requests/requestFileAt';
import { prepareFileRequest } from '../requests/requestFiles';
import { grpcMethodRequest } from '../grpc/sendGrpcRequest';
import type { SendRequestArgs } from '../requests/sendRequest';
import { prepareRequest } from '../requests/sendRequest';

/**
 * What the tree (an endpoint, or a gRPC method row: `kind` "grpcMethod" and its full `method` name), the CodeLens (a
 * request of a file) or a caller passes; `language` skips the picker. Nothing named: the result shown in the active
 * results panel, else one picked now.
 */
export type CopyAsCodeArgs = SendRequestArgs &
  Partial<FileRequestArgs> & {
    language?: CodeLanguage;
    kind?: string;
    method?: string;
    /** A gRPC call to a server known by reflection only: where to save its schema for the program, instead of asking. */
    protosetPath?: string;
  };

/**
 * Copy as Code: the request as one complete program in the language picked, copied to the
 * clipboard, where users paste it into their own project; "Open in Editor" shows it in an
 * untitled editor with the language's mode. The program signs a fresh token for every request and
 * holds no secret: the credential gives only its type and issuer.
 */
export function registerCopyAsCode(deps: CommandDeps): vscode.Disposable {
  return registerCommand(deps, COMMANDS.copyAsCode, async (args?: CopyAsCodeArgs): Promise<CommandOutcome> => {
    const named = args !== undefined && (isNamed(args) || args.kind !== undefined);
    // A request of a file: the lens's, or, with nothing named, the one under the cursor of a request file in front (the palette, a key).
    const at =
      args?.uri !== undefined
        ? await fileRequestAt({ uri: args.uri, line: args.line ?? 0 })
        : named
          ? undefined
          : requestFileInFront();
    if (at?.request.method === 'GRPC') return copyGrpcCode(deps, prepareGrpcFileRequest(deps, at), args);
    // A gRPC method of the Environments tree: its message template as the request.
    if (args?.kind === 'grpcMethod' && args.method) {
      const { prepared } = await grpcMethodRequest(deps, { environmentId: args.environmentId, method: args.method });
      return copyGrpcCode(deps, prepared, args);
    }
    const source = named || at ? undefined : shownSource(deps);
    if (source?.kind === 'grpc') return copyGrpcCode(deps, source.prepared, args);
    const prepared =
      source?.prepared ??
      (await requestOf(deps, at ? { ...args, uri: at.document.uri.toString(), line: at.request.line } : (args ?? {})));
    const { CODE_LANGUAGE_INFO, CODE_LANGUAGES, codeProgramFor, generateCode, KEY_FILE_VARIABLE, KEY_ID_VARIABLE } =
      loadCodegen();
    const language = args?.language ?? (await pickLanguage());
    if (!CODE_LANGUAGES.includes(language))
      throw new MobilityError(
        'USAGE',
        vscode.l10n.t('Copy as Code writes {0}, not {1}.', CODE_LANGUAGES.join(', '), String(language)),
      );
    const { credential, info } = await resolveCredential(deps, prepared.environment);
    const code = generateCode(
      language,
      codeProgramFor(prepared.environment, credential, prepared.request, deps.settings.lifetimeSeconds),
    );
    await vscode.env.clipboard.writeText(code);
    deps.log.info(COMMANDS.copyAsCode, `a ${language} program for ${prepared.title} on ${prepared.environment.name}`);
    const secrets =
      credential.type === 'service-account' ? KEY_FILE_VARIABLE : `${KEY_FILE_VARIABLE}, ${KEY_ID_VARIABLE}`;
    const demo = await demoKeyNote(deps, prepared.environment, info);
    offerToOpen(
      vscode.l10n.t(
        'Copied {0} for {1}. It reads its secrets from {2} and signs a fresh token for every request.',
        CODE_LANGUAGE_INFO[language].label,
        prepared.title,
        secrets,
      ) + (demo ? ` ${demo.text}` : ''),
      language,
      code,
    );
    return {
      ok: true,
      language,
      environmentId: prepared.environment.id,
      title: prepared.title,
      lines: code.split('\n').length,
      ...(demo ? { demoKeyFile: demo.keyFile } : {}),
    };
  });
}

/** Copy as Code on a GRPC request (of a file, a tree method or a result shown): a Python or TypeScript program, to the clipboard. */
async function copyGrpcCode(
  deps: CommandDeps,
  prepared: PreparedGrpcFileRequest,
  args: CopyAsCodeArgs | undefined,
): Promise<CommandOutcome> {
  const { CODE_LANGUAGE_INFO, CODE_LANGUAGES, KEY_FILE_VARIABLE, KEY_ID_VARIABLE } = loadCodegen();
  const language = args?.language;
  if (language !== undefined && !CODE_LANGUAGES.includes(language))
    throw new MobilityError(
      'USAGE',
      vscode.l10n.t('Copy as Code writes {0}, not {1}.', CODE_LANGUAGES.join(', '), String(language)),
    );
  const {
    code,
    language: picked,
    credentialType,
    credentialInfo,
    savedProtoset,
  } = await grpcFileCode(deps, prepared, language, args?.protosetPath);
  const secrets = credentialType === 'service-account' ? KEY_FILE_VARIABLE : `${KEY_FILE_VARIABLE}, ${KEY_ID_VARIABLE}`;
  await vscode.env.clipboard.writeText(code);
  deps.log.info(
    COMMANDS.copyAsCode,
    `a ${picked} gRPC program for ${prepared.title} on ${prepared.environment.name}${savedProtoset ? `, its schema saved to ${savedProtoset}` : ''}`,
  );
  const label = CODE_LANGUAGE_INFO[picked].grpcLabel ?? CODE_LANGUAGE_INFO[picked].label;
  const demo = await demoKeyNote(deps, prepared.environment, credentialInfo);
  offerToOpen(
    (savedProtoset
      ? vscode.l10n.t(
          'Copied {0} for {1}. It loads the schema the server gave by reflection from {2}, reads its secrets from {3} and signs a fresh token for every call.',
          label,
          prepared.title,
          savedProtoset,
          secrets,
        )
      : vscode.l10n.t(
          'Copied {0} for {1}. It reads its secrets from {2} and signs a fresh token for every call.',
          label,
          prepared.title,
          secrets,
        )) + (demo ? ` ${demo.text}` : ''),
    picked,
    code,
  );
  return {
    ok: true,
    language: picked,
    environmentId: prepared.environment.id,
    title: prepared.title,
    lines: code.split('\n').length,
    grpc: true,
    ...(savedProtoset ? { savedProtoset } : {}),
    ...(demo ? { demoKeyFile: demo.keyFile } : {}),
  };
}

/**
 * For a program signed with the local sandbox's demo credential: where its key file and key id file are, written
 * for it into the extension's global storage (the demo key lives in SecretStorage). Paths only, never the key or kid.
 */
async function demoKeyNote(
  deps: CommandDeps,
  environment: Environment,
  info: StoredCredentialInfo,
): Promise<{ text: string; keyFile: string } | undefined> {
  if (!info.demo || !environment.id.startsWith('sandbox-')) return undefined;
  const files = await deps.sandbox.writeDemoKeyFiles(path.join(deps.context.globalStorageUri.fsPath, 'sandbox-demo'));
  if (!files) return undefined;
  const { KEY_FILE_VARIABLE, KEY_ID_VARIABLE } = loadCodegen();
  return {
    keyFile: files.keyFile,
    text: vscode.l10n.t(
      'For the local sandbox, set {0} to {1} and {2} to the contents of {3} (its demo key, trusted by the sandbox alone).',
      KEY_FILE_VARIABLE,
      files.keyFile,
      KEY_ID_VARIABLE,
      files.keyIdFile,
    ),
  };
}

/** The notification after a copy, with "Open in Editor" (the program in an untitled editor of its language). */
function offerToOpen(message: string, language: CodeLanguage, code: string): void {
  const { CODE_LANGUAGE_INFO } = loadCodegen();
  const open = vscode.l10n.t('Open in Editor');
  void vscode.window.showInformationMessage(message, open).then(async (picked) => {
    if (picked !== open) return;
    const document = await vscode.workspace.openTextDocument({
      language: CODE_LANGUAGE_INFO[language].languageId,
      content: code,
    });
    await vscode.window.showTextDocument(document, { preview: false });
  });
}

/** Whether the caller named what to copy (the tree's endpoint, a path, a file's request), rather than the result shown. */
function isNamed(args: CopyAsCodeArgs): boolean {
  return (
    args.uri !== undefined ||
    args.environmentId !== undefined ||
    args.endpointId !== undefined ||
    args.path !== undefined ||
    args.otherPath === true
  );
}

/** The request behind the result shown in the active results panel (its title-bar button), whichever kind it is. */
function shownSource(deps: CommandDeps): CodeSource | undefined {
  const group = vscode.window.tabGroups.activeTabGroup;
  const tab = group.activeTab;
  const panelActive = tab?.input instanceof vscode.TabInputWebview && tab.input.viewType.includes(RESULTS_VIEW_TYPE);
  return panelActive ? deps.results.shownCodeSource({ label: tab.label, viewColumn: group.viewColumn }) : undefined;
}

/** A request of a file, or an endpoint or path of an environment, given or picked now. */
async function requestOf(deps: CommandDeps, args: CopyAsCodeArgs): Promise<PreparedRequest> {
  if (args.uri !== undefined) return (await prepareFileRequest(deps, { uri: args.uri, line: args.line ?? 0 })).prepared;
  const env = await resolveEnvironment(
    deps,
    args.environmentId ? { environmentId: args.environmentId } : undefined,
    vscode.l10n.t('Copy a request to which environment as code?'),
  );
  return prepareRequest(deps, env, args);
}

async function pickLanguage(): Promise<CodeLanguage> {
  const { CODE_LANGUAGE_INFO, CODE_LANGUAGES } = loadCodegen();
  const picked = await vscode.window.showQuickPick(
    CODE_LANGUAGES.map((language) => ({ label: CODE_LANGUAGE_INFO[language].label, language })),
    { placeHolder: vscode.l10n.t('Copy as a program in which language?'), ignoreFocusOut: true },
  );
  if (!picked) throw new Cancelled();
  return picked.language;
}
