// The MDS 2.0 conformance of a result as the panel shows it: the verdict, and every finding grouped by rule.

/** One example of a conformance rule: where (a JSON Pointer into page `pageIndex`'s body) and the value found. */
export interface ConformanceExampleView {
  pageIndex: number;
  path: string;
  value: string;
}

/** Every finding of one rule, as the panel lists it. */
export interface ConformanceRuleView {
  keyword: string;
  message: string;
  /** JSON Pointer with array indices as `*`. */
  where: string;
  count: number;
  /** Set when a known bug of the official schema causes these findings, not the provider. */
  schemaBug?: string;
  examples: ConformanceExampleView[];
}

/** The MDS 2.0 conformance of a result, as the panel shows it. */
export type ConformanceView =
  | { state: 'checking' }
  | { state: 'off' }
  | { state: 'notMds' }
  | {
      state: 'checked';
      conforms: boolean;
      /** `vehicles_status`, `trips`… */
      endpoint: string;
      mode: string;
      /** "openmobilityfoundation/mds-openapi v2.0 (fae69cb)". */
      schemaSource: string;
      itemsChecked: number;
      itemsWithFindings: number;
      findingCount: number;
      omittedFindings: number;
      rules: ConformanceRuleView[];
      schemaBugs: ConformanceRuleView[];
    };
