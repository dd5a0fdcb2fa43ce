import * as l10n from '@vscode/l10n';
import { hasUserInfo, userInfoProblem } from '../environment';
import type { GrpcFileParts, ProtoImport } from './requestFileGrpc';
import { grpcBodyMessages, grpcRequestLine, readProtoImport } from './requestFileGrpc';
import type { RefusedLine } from './requestFileScripts';
import { globalAssertion, notTextReason, readMeta, takeScripts } from './requestFileScripts';

/**
 * `.http` / `.rest` request files in REST Client's syntax, the way users of REST Client and httpYac already keep their
 * requests: requests separated by `###`, `@name = value` file variables, `{{name}}` substitution, `# @name x` request
 * names, `#` and `//` comments, headers under the request line and an optional body after a blank line. A fresh token
 * is signed for every send, so a request file never holds a token or a key: a request's own Authorization header is
 * refused unless `# @authorization as-is` above it asks for it on purpose. Scripts and meta data: requestFileScripts.ts.
 */

/** One request of a file, as written (variables not yet substituted). */
export interface FileRequest {
  /** 1-based position in the file, the name REST Client gives an unnamed request. */
  index: number;
  /** From `# @name x` or `// @name x`. */
  name?: string;
  /** From `# @authorization as-is`: the request's own Authorization header is sent as written. */
  authorizationAsIs?: boolean;
  method: string;
  /** The URL as written, continuation lines (`?a=1`, `&b=2`) joined. */
  url: string;
  headers: { name: string; value: string }[];
  /** Text after the blank line that ends the headers, when there is any. */
  body?: string;
  /** 0-based line where `body` starts. */
  bodyLine?: number;
  /** 0-based line of the request line (for CodeLens and messages). */
  line: number;
  /** Set on `GRPC` requests (see requestFileGrpc.ts); `url` is then the text after `GRPC`. */
  grpc?: GrpcFileParts;
  /**
   * httpYac's assertion lines (`?? status == 200`) of the request's block, wherever they stand in it
   * (above the request line, among the headers, in or after the body), as written: core/contract reads them.
   */
  assertions?: AssertionLine[];
  /** `# @disabled` above it: not sent; `# @sleep <ms>`: sent after waiting that long (as httpYac does). */
  disabled?: boolean;
  sleepMs?: number;
  /** What its block holds that no request runs (script blocks, `@loop`, `@ref`…): never skipped in silence. */
  refused?: RefusedLine[];
}

/** One `??` line as written: the text from `??` on, its 0-based line and the 0-based column of `??`. */
export interface AssertionLine {
  text: string;
  line: number;
  column: number;
}

/** A parsed request file. Never throws: problems are reported with their line. */
export interface RequestFile {
  /** `@name = value`, in file order; a later definition wins. */
  variables: Map<string, { value: string; line: number }>;
  requests: FileRequest[];
  problems: { line: number; message: string }[];
  /** `proto <` lines of blocks without a request: the schema of every later GRPC request. */
  protos: ProtoImport[];
  /** Every line refused in the file (see requestFileScripts.ts), requests' and global ones (a `??` above the first request). */
  refused: RefusedLine[];
  /** Set, and the only problem, when the text is not a text request file (NUL bytes, invalid UTF-8): nothing else was read. */
  notText?: string;
}

const SEPARATOR = /^###/;
/** httpYac's assertion lines: `??` first on the line (a JSON body never starts a line with it). */
const ASSERTION = /^\s*\?\?/;
// `[^\n]*`, not `.*`: a bare CR inside a value must not turn the line into a request line (see `expandVariable`).
const VARIABLE = /^@([A-Za-z_][\w.-]*)\s*=\s*([^\n]*)$/;
const NAME = /^(?:#|\/\/)\s*@name\s*(?:=\s*)?(\S+)\s*$/;
const AUTHORIZATION_DIRECTIVE = /^(?:#|\/\/)\s*@authorization\b\s*(?:=\s*)?(.*)$/;
const COMMENT = /^(?:#|\/\/)/;
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT', 'GRPC'];
const HEADER = /^([!#$%&'*+.^\w`|~-]+)\s*:\s*(.*)$/;
const REFERENCE_TEST = /\{\{([^{}]*)\}\}/;

/** Parses a request file. Blocks that hold no request line (only variables and comments) are not requests. */
export function parseRequestFile(text: string): RequestFile {
  const file: RequestFile = { variables: new Map(), requests: [], problems: [], protos: [], refused: [] };
  const notText = notTextReason(text);
  if (notText) {
    // One message for the whole file, not a warning per line of a binary file.
    file.notText = notText;
    file.problems.push({ line: 0, message: notText });
    return file;
  }
  const lines = text.split(/\r?\n/);
  let block: { start: number; lines: { text: string; line: number }[] } = { start: 0, lines: [] };
  const flush = () => {
    const request = parseBlock(block.lines, file);
    if (request) file.requests.push({ ...request, index: file.requests.length + 1 });
  };
  lines.forEach((raw, line) => {
    if (SEPARATOR.test(raw.trim())) {
      flush();
      block = { start: line + 1, lines: [] };
    } else {
      block.lines.push({ text: raw, line });
    }
  });
  flush();
  return file;
}

function parseBlock(
  blockLines: { text: string; line: number }[],
  file: RequestFile,
): Omit<FileRequest, 'index'> | undefined {
  // Assertion lines are taken out first: they may stand anywhere in the block, and are neither headers nor body.
  const assertions: AssertionLine[] = [];
  const refused: RefusedLine[] = [];
  const meta: { disabled?: boolean; sleepMs?: number } = {};
  const lines = takeScripts(blockLines, refused).filter((l) => {
    if (!ASSERTION.test(l.text)) return true;
    const column = l.text.indexOf('??');
    assertions.push({ text: l.text.slice(column).trimEnd(), line: l.line, column });
    return false;
  });
  let name: string | undefined;
  let asIs: number | undefined;
  const protos: ProtoImport[] = [];
  let i = 0;
  // Before the request line: blank lines, comments, names, file variables and `proto <` imports.
  for (; i < lines.length; i++) {
    const text = lines[i].text.trim();
    if (text === '') continue;
    const proto = readProtoImport(lines, i, file.problems);
    if (proto) {
      if (proto.proto) protos.push(proto.proto);
      i = proto.next - 1;
      continue;
    }
    const metaLine = readMeta(lines[i].text, lines[i].line);
    if (metaLine) {
      if (metaLine.kind === 'refused') refused.push(metaLine.refused);
      else Object.assign(meta, metaLine.kind === 'disabled' ? { disabled: true } : { sleepMs: metaLine.ms });
      continue;
    }
    const named = NAME.exec(text);
    if (named) {
      name = named[1];
      continue;
    }
    const directive = AUTHORIZATION_DIRECTIVE.exec(text);
    if (directive) {
      if (directive[1].trim() === 'as-is') asIs = lines[i].line;
      else
        file.problems.push({
          line: lines[i].line,
          message: l10n.t(
            '"{0}" is not a directive: write "# @authorization as-is" to send the request\'s own Authorization header as written.',
            text,
          ),
        });
      continue;
    }
    if (COMMENT.test(text)) continue;
    const variable = VARIABLE.exec(text);
    if (variable) {
      file.variables.set(variable[1], { value: variable[2].trim(), line: lines[i].line });
      continue;
    }
    break;
  }
  if (i >= lines.length) {
    file.protos.push(...protos);
    file.refused.push(...refused, ...assertions.map(globalAssertion));
    return undefined;
  }
  const requestLine = lines[i];
  const { method, url: target } = splitRequestLine(requestLine.text.trim());
  if (target === '' || METHODS.includes(target.toUpperCase())) {
    file.problems.push({
      line: requestLine.line,
      message:
        method === 'GRPC'
          ? `"${requestLine.text.trim()}" names no method: write "GRPC {{grpcTarget}}/package.Service/Method".`
          : `"${requestLine.text.trim()}" names no URL: write "GET <url>".`,
    });
    return undefined;
  }
  let url = target;
  i++;
  // Query continuation lines: `?a=1` and `&b=2`, usually indented.
  while (method !== 'GRPC' && i < lines.length && /^\s*[?&]/.test(lines[i].text)) url += lines[i++].text.trim();
  const headers: { name: string; value: string }[] = [];
  for (; i < lines.length; i++) {
    const text = lines[i].text.trim();
    if (text === '') break;
    const metaLine = COMMENT.test(text) ? readMeta(text, lines[i].line) : undefined;
    if (metaLine?.kind === 'refused') refused.push(metaLine.refused);
    if (COMMENT.test(text)) continue;
    const header = HEADER.exec(text);
    if (!header) {
      file.problems.push({
        line: lines[i].line,
        message: `"${text}" is not a header: write "Name: value", and leave a blank line before a body.`,
      });
      continue;
    }
    headers.push({ name: header[1], value: header[2].trim() });
  }
  const bodyLines = lines.slice(i + 1);
  const bodyText = bodyLines
    .map((l) => l.text)
    .join('\n')
    .trim();
  const request: Omit<FileRequest, 'index'> = { method, url, headers, line: requestLine.line };
  if (name) request.name = name;
  if (assertions.length) request.assertions = assertions;
  Object.assign(request, meta);
  if (refused.length) {
    request.refused = refused;
    file.refused.push(...refused);
  }
  if (bodyText) {
    request.body = bodyText;
    request.bodyLine = bodyLines.find((l) => l.text.trim() !== '')?.line;
  }
  if (method === 'GRPC') request.grpc = grpcPartsOf(request, [...file.protos, ...protos], file);
  else if (protos.length)
    file.problems.push({
      line: protos[0].line,
      message: l10n.t('"proto <" above a {0} request has no effect: it names the schema of GRPC requests.', method),
    });
  if (asIs !== undefined) {
    if (headers.some((h) => /^authorization$/i.test(h.name))) request.authorizationAsIs = true;
    else
      file.problems.push({
        line: asIs,
        message: l10n.t(
          '"# @authorization as-is" has no effect here: the request below it sets no Authorization header: a fresh token is signed for it.',
        ),
      });
  }
  return request;
}

/** The GRPC parts of `request`; a request line or a JSON body (without variables) that cannot be sent is a problem. */
function grpcPartsOf(request: Omit<FileRequest, 'index'>, protos: ProtoImport[], file: RequestFile): GrpcFileParts {
  // Before the request line is read: its problems quote the line, which must hold no password.
  const line = hasUserInfo(request.url)
    ? { problem: l10n.t('Line {0}: {1}', request.line + 1, userInfoProblem(l10n.t('The gRPC target'))) }
    : grpcRequestLine(request.url, request.line);
  let problem = 'problem' in line ? line.problem : undefined;
  if (!problem && request.body !== undefined && !REFERENCE_TEST.test(request.body)) {
    try {
      grpcBodyMessages(request.body, request.bodyLine ?? request.line);
    } catch (err) {
      problem = l10n.t('Request at line {0}: {1}', request.line + 1, (err as Error).message);
    }
  }
  if (problem) file.problems.push({ line: request.line, message: problem });
  const parts: GrpcFileParts = 'problem' in line ? { method: '', target: '', protos } : { ...line, protos };
  if (problem) parts.problem = problem;
  return parts;
}

/** `GET <url> HTTP/1.1`, `GET <url>` or `<url>` (GET). By hand: a lazy regex is quadratic on a long run of spaces. */
function splitRequestLine(text: string): { method: string; url: string } {
  let rest = text;
  const space = rest.search(/\s/);
  let method = 'GET';
  // A word in capitals is a method, one we know or not (`GIT <url>`): refused as a method where it is sent, not as a URL.
  if (
    space > 0 &&
    (METHODS.includes(rest.slice(0, space).toUpperCase()) || /^[A-Z]{2,16}$/.test(rest.slice(0, space)))
  ) {
    method = rest.slice(0, space).toUpperCase();
    rest = rest.slice(space).trimStart();
  }
  const tail = rest.slice(Math.max(0, rest.length - 16));
  const version = /\sHTTP\/[\d.]+$/i.exec(tail);
  if (version) rest = rest.slice(0, rest.length - tail.length + version.index).trimEnd();
  return { method, url: rest };
}
