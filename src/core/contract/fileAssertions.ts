// What the editor says about a request file's assertion lines while it is edited: each malformed line (an error) and
// each form not supported here (a warning), at the part at fault, so that neither is a surprise at run time.
import { parseRequestFile } from '../http';
import type { AssertionProblem } from './assertion';
import { parseAssertions, protocolProblem } from './assertion';

/** The problems of every assertion line of `text`, and how many assertions each request has (by its request line). */
export function fileAssertions(text: string): { problems: AssertionProblem[]; counts: { line: number; assertions: number }[] } {
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
  return { problems, counts };
}
