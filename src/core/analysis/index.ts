// analysis: answers from a harvest folder with DuckDB (SQL over its hours, typed by the MDS 2.0 models; Parquet for
// bigger engines). The native engine is loaded on first use and never bundled. Imports `base`, `mds`, `conformance`
// (the models' schemas) and `harvest` (the folder's manifest); never `vscode`.

export { ANALYSIS_VIEWS, AnalysisSession, formatOf, temporaryPathOf } from './analysisEngine';
export type { AnalysisOptions, QueryAnswer } from './analysisEngine';
export { itemColumnsOf } from './columnTypes';
export { ANALYSIS_TABLES, readHarvestSource } from './harvestSource';
export type { AnalysisTable, HarvestPart, HarvestSource } from './harvestSource';
export { CHECK_RULES, DEFAULT_THRESHOLDS } from './checkRules';
export type { CheckFinding, CheckRule, CheckThresholds } from './checkRules';
export { CHECK_RULE_IDS, checkJunit, findingLine, hasErrorFinding, runChecks, thresholdsOf } from './checkRun';
export type { CheckReport, CheckRuleResult } from './checkRun';
export { checkWindowOf, ruleQueriesOf } from './ruleSql';
export type { RuleQuery } from './ruleSql';
