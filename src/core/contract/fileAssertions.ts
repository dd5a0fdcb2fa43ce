// What the editor says about a request file's assertion lines while it is edited: each malformed line (an error), each
// form not supported here (a warning) and each script or meta data line a run refuses (an error), at the part at fault,
// so that none is a surprise at run time.
import type { FileRequest, RequestFile } from '../http';
import { expandFileText, parseRequestFile } from '../http';
import type { Assertion, AssertionProblem } from './assertion';
import { parseAssertions, protocolProblem } from './assertion';

/** The problems of every assertion line of `text`, and how many assertions each request has (by its request line). */
export function fileAssertions(text: string): {
  problems: AssertionProblem[];
  counts: { line: number; assertions: number }[];
} {
  const file = parseRequestFile(text);
  const problems: AssertionProblem[] = [];
  const counts: { line: number; assertions: number }[] = [];
  for (const request of file.requests) {
    const read = parseAssertions(request.assertions ?? []);
    problems.push(...read.problems);
    for (const a of read.assertions) {
      const wrong = protocolProblem(a, request.grpc !== undefined);
      if (wrong) problems.push(wrong);
    }
    if (request.assertions?.length) counts.push({ line: request.line, assertions: request.assertions.length });
  }
  // Script blocks, handlers, `@loop`, `@ref`, a global `??`: a test run refuses them (exit 2), so they are errors here.
  for (const r of file.refused) problems.push({ ...r, unsupported: false });
  problems.sort((a, b) => a.line - b.line || a.column - b.column);
  return { problems, counts };
}

/** A request's assertions, ready to check: those that can run, and the forms not supported here (each a failure). */
export interface RequestAssertions {
  assertions: Assertion[];
  unsupported: AssertionProblem[];
}

/**
 * The assertions of one request of a file as a send checks them: read, their `{{variables}}` expanded with `given`;
 * malformed lines and forms for the other protocol left out (the editor underlines them), unsupported forms kept.
 */
export function requestAssertions(
  file: RequestFile,
  request: FileRequest,
  given: Record<string, string>,
): RequestAssertions {
  const read = parseAssertions(request.assertions ?? []);
  const grpc = request.grpc !== undefined;
  const assertions = read.assertions
    .filter((a) => !protocolProblem(a, grpc))
    .map((a) => {
      if (a.expected === undefined) return a;
      try {
        return { ...a, expected: expandFileText(request, file, a.expected, given) };
      } catch {
        return a;
      }
    });
  return { assertions, unsupported: read.problems.filter((p) => p.unsupported) };
}
