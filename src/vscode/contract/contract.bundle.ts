// The entry of dist/contract.js (esbuild.js): core/contract's runner (with the MDS schemas and ajv of `?? mds
// conformance`) and what the Testing view's runs need around it, a bundle of its own that the shell loads the first
// time a test runs (contractLoader.ts), so that activation loads none of it. Configures its own @vscode/l10n.
import type { CredentialType } from '../../core/auth';
import type { Environment } from '../../core/environment';
import { normaliseBaseUrl } from '../../core/environment';
import type { HttpExchange } from '../../core/http';
import { configureHostL10n } from '../panel/l10nBundle';
import { explainRefusal, refusalLines } from '../../results/tokens/refusalView';
import { explainGrpcRefusal } from '../../results/grpc/grpcRefusal';
import type { GrpcCallResult } from '../../core/grpc';
import { grpcAnswerOf } from '../../results/contract/assertionView';

configureHostL10n();

export { planContractRun, runContractPlan } from '../../core/contract';

/** The refusal doctor's lines for a REST 401/403 of a test run. */
export function restRefusal(
  page: HttpExchange,
  environment: Environment,
  credentialType: CredentialType,
): string[] | undefined {
  const explanation = explainRefusal(page, {
    audience: normaliseBaseUrl(environment.baseUrl, environment.name),
    api: environment.api,
    credentialType,
    now: Date.now(),
  });
  return explanation ? refusalLines(explanation) : undefined;
}

/** A gRPC call's result as the answer its assertions are checked against, with the doctor's lines when refused. */
export function grpcTestAnswer(result: GrpcCallResult, environment: Environment, credentialType: CredentialType) {
  const explanation = explainGrpcRefusal(result, {
    audience: normaliseBaseUrl(environment.baseUrl, environment.name),
    api: environment.api,
    credentialType,
    now: Date.now(),
  });
  return grpcAnswerOf(result, explanation ? refusalLines(explanation) : undefined);
}
