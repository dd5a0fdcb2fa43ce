// How a request's assertions went after a send from a request file, for the results panel's header. Types only.

/** One assertion line and its outcome; on failure what was expected and what was found, in words. */
export interface AssertionResultView {
  /** As written: `?? status == 200`. */
  text: string;
  /** 1-based line in the request file. */
  line: number;
  passed: boolean;
  expected?: string;
  actual?: string;
  /** On failure without an expected value (a form not supported here): the reason. */
  message?: string;
}
