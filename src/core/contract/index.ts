// contract: contract tests of a provider. httpYac's assertion lines of `.http` files (`?? status == 200`) and ours
// (`?? mds conformance`, `?? mds items > 0`, `?? mds pages`, `?? token accepted`) read with their positions, checked
// against an answer, and the runner behind `mobility-api test`. Imports `base`, `environment`, `auth`, `mds`,
// `conformance` and `http`; never `vscode`. Reading assertions (assertion.ts) loads no schema: the editor may use it alone.

export { parseAssertion, parseAssertions, protocolProblem } from './assertion';
export type { Assertion, AssertionProblem, AssertionSubject, DurationTiming } from './assertion';
export { parseBodyPath, readPath } from './bodyPath';
export type { PathStep } from './bodyPath';
export { checkValue, evaluateAssertion, showValue } from './evaluate';
export { evaluateGrpcAssertion } from './grpcEvaluate';
export type { GrpcAnswer } from './grpcEvaluate';
export type { AssertionOutcome, EvaluationContext } from './evaluate';
export { planContractRun } from './contractPlan';
export { grpcOutcomes, resultOutcomes, runContractPlan } from './contractRun';
export type { ContractPlan, ContractSource, PlannedRequest, PlanOptions, PlanProblem } from './contractPlan';
export type { RequestRun, RunOptions, TokenMention } from './contractRun';
export { PREDICATES, predicateIds } from './predicates';
export type { Predicate } from './predicates';
export { failureLines, junitReport } from './junitReport';
export { fileAssertions, requestAssertions } from './fileAssertions';
export type { RequestAssertions } from './fileAssertions';
