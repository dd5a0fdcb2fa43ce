// analysis: answers from a harvest folder with DuckDB (SQL over its hours, typed by the MDS 2.0 models; Parquet for
// bigger engines). The native engine is loaded on first use and never bundled. Imports `base`, `mds`, `conformance`
// (the models' schemas) and `harvest` (the folder's manifest); never `vscode`.

export { AnalysisSession, formatOf, temporaryPathOf } from './analysisEngine';
export { ANALYSIS_VIEWS } from './harvestViews';
export { DEFAULT_MEMORY_LIMIT, DEFAULT_TEMP_LIMIT, memoryLimitOf } from './memoryLimit';
export { DEFAULT_PARQUET_PARTITION } from './parquetLayout';
export type { ParquetPartition } from './parquetLayout';
export { malformedJsonLineFixed } from './queryErrors';
export type { AnalysisOptions, QueryAnswer } from './analysisEngine';
export { itemColumnsOf } from './columnTypes';
export { ANALYSIS_TABLES, readHarvestSource } from './harvestSource';
export type { AnalysisTable, HarvestPart, HarvestSnapshot, HarvestSource } from './harvestSource';
export { CHECK_RULES, DEFAULT_THRESHOLDS, MODE_MACHINES } from './checkRules';
export type { CheckContext, CheckFinding, CheckRule, CheckThresholds } from './checkRules';
export { parseModeMachine, parseProwStates } from './modeMachines';
export type { ModeMachine, ModeMachines } from './modeMachines';
export {
  CHECK_REPORT_VERSION,
  CHECK_RULE_IDS,
  checkJunit,
  findingLine,
  hasErrorFinding,
  runChecks,
  thresholdsOf,
} from './checkRun';
export { MDS_TAG, mdsBasisUrl, ruleDocOf } from './rules/ruleBasis';
export type { MdsBasis, RuleSeverity } from './rules/ruleBasis';
export { RULE_CATALOG, ruleNamed } from './rules/ruleCatalog';
export type { CatalogRule } from './rules/ruleCatalog';
export type { CheckOptions, CheckReport, CheckRuleResult } from './checkRun';
export { METRICS_GROUPS, metricsSql, metricsWindow, runMetrics } from './metrics';
export type { MetricsGroup, MetricsReport, MetricsWindow } from './metrics';
export { checkWindowOf, ruleQueriesOf } from './ruleSql';
export type { RuleQuery } from './ruleSql';
export { TIMELINE_BOUNDS, TIMELINE_COLUMNS, timelineSql } from './timeline';
export type { TimelineBounds, TimelineTarget } from './timeline';
export { removeAbandonedParquet } from './sessionFolder';
export { GEOGRAPHY_TABLES } from './geographyTables';
export type { GeographyAssignment } from './geographyTables';
export { REPORT_K, checkTimeZone, localMonthStart } from './reportsRule';
export { UNTYPED_VIEW, intakeLines } from './integrity/intake';
export type { Intake, IntakeCounts } from './integrity/intake';
