import path from 'node:path';
import * as vscode from 'vscode';
import { MobilityError } from '../../core/base';
import type { FileRequest, RequestFile } from '../../core/http';
import { parseRequestFile } from '../../core/http';
import { REQUEST_FILE_SELECTOR } from './requestFileLens';

/** Which request of which file the CodeLens sends: the document and the 0-based line of its request line. */
export interface FileRequestArgs {
  uri: string;
  line: number;
}

/** A request of a request file, parsed, with its document. */
export interface FileRequestAt {
  document: vscode.TextDocument;
  file: RequestFile;
  request: FileRequest;
}

/** The request of a request file at `args` (or under the cursor), or USAGE saying what to write. */
export async function fileRequestAt(args: FileRequestArgs | undefined): Promise<FileRequestAt> {
  const { document, line } = await requestAt(args);
  const file = parseRequestFile(document.getText());
  if (file.notText) throw new MobilityError('USAGE', `${path.basename(document.uri.path)}: ${file.notText}`);
  const request = requestOnLine(file, line);
  if (!request)
    throw new MobilityError(
      'USAGE',
      vscode.l10n.t(
        '{0} holds no request at line {1}: write "GET {{baseUrl}}/vehicles".',
        path.basename(document.uri.path),
        line + 1,
      ),
    );
  return { document, file, request };
}

/** The request whose request line is `line`, else the last one above it (the cursor in its headers or body). */
function requestOnLine(file: RequestFile, line: number): FileRequest | undefined {
  return file.requests.find((r) => r.line === line) ?? file.requests.filter((r) => r.line <= line).at(-1);
}

/** The request at the cursor of the request file in the active editor, when one is in front and holds one there. */
export function requestFileInFront(): FileRequestAt | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor || vscode.languages.match(REQUEST_FILE_SELECTOR, editor.document) === 0) return undefined;
  const file = parseRequestFile(editor.document.getText());
  const request = file.notText ? undefined : requestOnLine(file, editor.selection.active.line);
  return request ? { document: editor.document, file, request } : undefined;
}

async function requestAt(args: FileRequestArgs | undefined): Promise<{ document: vscode.TextDocument; line: number }> {
  if (args?.uri)
    return { document: await vscode.workspace.openTextDocument(vscode.Uri.parse(args.uri)), line: args.line ?? 0 };
  const editor = vscode.window.activeTextEditor;
  if (!editor)
    throw new MobilityError(
      'USAGE',
      vscode.l10n.t('Open a .http or .rest file and use "Send with fresh token" above a request.'),
    );
  return { document: editor.document, line: editor.selection.active.line };
}

/**
 * The folder a request file's relative paths (`proto <` files, includeDirs) are relative to: the file's own folder;
 * for an unsaved document, its workspace folder (or the first one). Undefined when there is none.
 */
export function requestFileFolder(document: vscode.TextDocument): string | undefined {
  if (document.uri.scheme === 'file') return path.dirname(document.uri.fsPath);
  const folder = vscode.workspace.getWorkspaceFolder(document.uri) ?? vscode.workspace.workspaceFolders?.[0];
  return folder?.uri.scheme === 'file' ? folder.uri.fsPath : undefined;
}
