// The tools that send requests to a provider, each with a fresh token per request and page: one request, the contract
// tests of request files, and a harvest hour by hour. Off unless the surface allows the network (and confirmed by the
// user in VS Code); a production environment refused unless the user allows it.
import * as l10n from '@vscode/l10n';
import fs from 'node:fs';
import path from 'node:path';
import { MobilityError } from '../../core/base';
import type { ContractSource } from '../../core/contract';
import { failureLines, planContractRun, runContractPlan } from '../../core/contract';
import { normaliseBaseUrl } from '../../core/environment';
import { harvestHours } from '../../core/harvest';
import { ApiClient } from '../../core/http';
import type { ApiResult } from '../../core/http';
import type { MdsHourEndpointId } from '../../core/mds';
import { pageErrorView } from '../../results/tokens/errorAdvice';
import { explainRefusal, refusalLines } from '../../results/tokens/refusalView';
import { pagesMasker } from '../../results/tokens/tokenPreview';
import { assertMayReach, credentialOf, pickEnvironment } from '../agentEnvironments';
import type { AgentContext, AgentEnvironment, AgentTool } from '../agentTool';
import { GRPC_INPUT, isGrpcInput, sendGrpcRequest } from './grpcRequest';
import { requestOf, REQUEST_INPUT, targetOf } from './requestInput';

const ENVIRONMENT_INPUT = {
  type: 'string',
  description: 'The environment id or name (list_environments); may be left out when there is only one.',
};
/** A network tool: it reaches a provider, and writes nothing but (harvest_hours) new hour files. */
const NETWORK = { readOnlyHint: false, openWorldHint: true, destructiveHint: false } as const;
const DEFAULT_ITEMS = 10;
const MAX_ITEMS = 50;

/** A network call's environment, checked: the network allowed, production only when allowed, a credential bound. */
async function reach(context: AgentContext, named: unknown) {
  const entry = await pickEnvironment(context, named);
  assertMayReach(context, entry);
  const credential = await credentialOf(context, entry);
  const { issuer, queue } = context.signing();
  return { entry, credential, client: (timeoutMs?: number) => new ApiClient({ issuer, queue, timeoutMs }) };
}

/** The value with every token this result sent hidden wherever a server echoed it. */
function withoutSentTokens<T>(value: T, result: ApiResult): T {
  const mask = pagesMasker(result.pages);
  return JSON.parse(JSON.stringify(value, (_k, v: unknown) => (typeof v === 'string' ? mask(v) : v)) ?? 'null') as T;
}

/** What send_request answers: the result's id, status, items (capped) or body, and a refusal's rule and fix. */
function resultAnswer(
  id: string,
  entry: AgentEnvironment,
  result: ApiResult,
  maxItems: number,
  credentialType: string | undefined,
) {
  const last = result.pages[result.pages.length - 1];
  const refused = last !== undefined && (last.status === 401 || last.status === 403);
  const error =
    last && !last.ok
      ? pageErrorView(last, {
          audience: normaliseBaseUrl(entry.environment.baseUrl, entry.environment.name),
          api: entry.environment.api,
          credentialType: credentialType as never,
          now: Date.now(),
        })
      : undefined;
  return withoutSentTokens(
    {
      result_id: id,
      method: 'GET',
      url: result.url,
      environment: entry.environment.id,
      stage: entry.environment.stage,
      status: last?.status ?? null,
      statusText: last?.statusText ?? null,
      outcome: result.outcome,
      pages: result.pages.length,
      ...(result.items.length || result.itemsKey
        ? {
            itemsKey: result.itemsKey ?? null,
            itemCount: result.items.length,
            items: result.items.slice(0, maxItems),
            itemsShown: Math.min(maxItems, result.items.length),
          }
        : { body: last?.body ?? null }),
      ...(result.nextUrl ? { morePages: true } : {}),
      ...(result.stoppedBecause ? { stoppedBecause: result.stoppedBecause } : {}),
      ...(error
        ? {
            error: {
              rule: error.rule ?? null,
              server: error.mdsError ?? error.message ?? null,
              fix: error.tips,
              cause: error.explanation?.cause ?? null,
            },
          }
        : {}),
      ...(refused
        ? { next: l10n.t('Call explain_refusal with result_id {0} for the rule broken, the evidence and the fix.', id) }
        : {}),
    },
    result,
  );
}

const sendRequest: AgentTool = {
  name: 'send_request',
  title: 'Send a request',
  description:
    'Sends one GET to an environment with a freshly signed token (a new one per page), for an endpoint id of describe_endpoints or a path such as {"path": "/vehicles"}; or, with grpc_method (package.Service/Method) and a JSON message, one gRPC call to the environment\'s gRPC target with a fresh token. Returns a result id, the status, the item count and the first items (or response messages; coordinates rounded), or the body; after a refusal, the rule and fix (explain_refusal says more).',
  inputSchema: {
    type: 'object',
    properties: {
      environment: ENVIRONMENT_INPUT,
      ...REQUEST_INPUT,
      all_pages: {
        type: 'boolean',
        default: false,
        description: 'Follow links.next (a fresh token per page), up to max_pages.',
      },
      max_pages: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
      max_items: {
        type: 'integer',
        minimum: 0,
        maximum: MAX_ITEMS,
        default: DEFAULT_ITEMS,
        description: 'Items (or gRPC response messages) to return (the count is always whole).',
      },
      ...GRPC_INPUT,
    },
    additionalProperties: false,
  },
  annotations: NETWORK,
  network: true,
  async run(input, context, call) {
    const grpc = isGrpcInput(input);
    const { entry, credential, client } = await reach(context, input.environment);
    const maxItems = typeof input.max_items === 'number' ? input.max_items : DEFAULT_ITEMS;
    if (grpc) return sendGrpcRequest(input, context, call, entry, credential, maxItems);
    const request = requestOf(entry.environment.api, input);
    call.progress?.(0, undefined, l10n.t('Sending GET {0}…', request.path));
    const result = await client().request(entry.environment, credential, request, {
      allPages: input.all_pages === true,
      maxPages: typeof input.max_pages === 'number' ? input.max_pages : 10,
      signal: call.signal,
      onPage: (page, n) => call.progress?.(n, undefined, l10n.t('Page {0}: {1}', n, page.status)),
    });
    const kept = context.history.add({
      environment: entry.environment,
      credentialType: credential.type,
      target: targetOf(input),
      result,
    });
    const shown = context.onResult?.(kept);
    return {
      ...resultAnswer(kept.id, entry, result, maxItems, credential.type),
      ...(shown ? { resultsPanelEntry: shown } : {}),
    };
  },
};

/** The `.http`/`.rest` files of the paths given (folders searched, hidden folders and node_modules left out). */
function requestFiles(root: string, given: string[]): ContractSource[] {
  const files = given.flatMap((g) => {
    const full = path.resolve(root, g);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(full);
    } catch {
      throw new MobilityError(
        'FILE_READ_FAILED',
        l10n.t('Cannot read the request file {0}: no such file or folder.', g),
      );
    }
    if (!stat.isDirectory()) return [full];
    return fs
      .readdirSync(full, { recursive: true, encoding: 'utf8' })
      .filter(
        (name) =>
          /\.(http|rest)$/i.test(name) &&
          !name.split(path.sep).some((part) => part === 'node_modules' || part.startsWith('.')),
      )
      .map((name) => path.join(full, name))
      .sort();
  });
  return files.map((file) => ({ name: path.relative(root, file) || file, text: fs.readFileSync(file, 'utf8') }));
}

const runContractTests: AgentTool = {
  name: 'run_contract_tests',
  title: 'Run contract tests',
  description:
    'Runs the requests with assertions (?? status == 200, ?? mds conformance…) of .http request files against an environment, each with a fresh token, as `mobility-api test` does: per request pass or fail and the failed assertions, then the totals. Reports progress per request.',
  inputSchema: {
    type: 'object',
    properties: {
      environment: ENVIRONMENT_INPUT,
      files: {
        type: 'array',
        minItems: 1,
        maxItems: 100,
        items: { type: 'string', minLength: 1, maxLength: 4096 },
        description: 'Request files (.http, .rest) or folders holding them, absolute or relative to the workspace.',
      },
      filter: { type: 'string', maxLength: 200, description: 'Only requests whose name contains this text.' },
      all: { type: 'boolean', default: false, description: 'Also send the requests without assertions.' },
    },
    required: ['files'],
    additionalProperties: false,
  },
  annotations: NETWORK,
  network: true,
  async run(input, context, call) {
    const { entry, credential, client } = await reach(context, input.environment);
    const environment = entry.environment;
    const sources = requestFiles(context.root, input.files as string[]);
    const plan = planContractRun(sources, {
      api: environment.api,
      baseUrl: environment.baseUrl,
      all: input.all === true,
      ...(typeof input.filter === 'string' ? { filter: input.filter } : {}),
    });
    if (plan.problems.length)
      return {
        sent: 0,
        problems: plan.problems.map((p) => `${p.file}:${p.line + 1}:${p.column + 1}: ${p.message}`),
        note: l10n.t('Nothing was sent: fix these lines first.'),
      };
    const total = plan.files.reduce((n, f) => n + f.requests.length, 0);
    let done = 0;
    const runs = await runContractPlan(plan, {
      client: client(),
      environment,
      credential,
      signal: call.signal,
      explainRefusal: (page) => {
        const explanation = explainRefusal(page, {
          audience: normaliseBaseUrl(environment.baseUrl, environment.name),
          api: environment.api,
          credentialType: credential.type,
          now: Date.now(),
        });
        return explanation ? refusalLines(explanation) : undefined;
      },
      onRequest: (run) => call.progress?.(++done, total, `${run.passed ? 'PASS' : 'FAIL'} ${run.label}`),
    });
    return {
      environment: environment.id,
      passed: runs.filter((r) => r.passed && !r.skipped && !r.untested).length,
      failed: runs.filter((r) => !r.passed).length,
      notRun: total - runs.length,
      requests: runs.map((r) => ({
        label: r.label,
        file: r.file,
        line: r.line + 1,
        status: r.status ?? r.grpcStatus ?? null,
        passed: r.passed,
        ...(r.skipped ? { skipped: r.skipped } : {}),
        ...(r.untested ? { untested: true } : {}),
        failures: failureLines(r).slice(0, 10),
      })),
    };
  },
};

const HARVEST_ENDPOINTS: Readonly<Record<string, MdsHourEndpointId>> = {
  trips: 'trips',
  events: 'events_historical',
  telemetry: 'telemetry',
};

const harvestHoursTool: AgentTool = {
  name: 'harvest_hours',
  title: 'Harvest hours',
  description:
    'Fetches an hour-window MDS endpoint (trips, events or telemetry) hour by hour into a folder on this computer (one NDJSON file per hour and a manifest; a fresh token per request and page; resumable: done hours are skipped). Returns the coverage per status, not the items: read them with describe_harvest, run_check, compute_metrics or query_harvest. Reports progress per hour and can be cancelled.',
  inputSchema: {
    type: 'object',
    properties: {
      environment: ENVIRONMENT_INPUT,
      endpoint: { type: 'string', enum: Object.keys(HARVEST_ENDPOINTS) },
      from: {
        type: 'string',
        pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}$',
        description: 'The first UTC hour, YYYY-MM-DDTHH.',
      },
      to: {
        type: 'string',
        pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}$',
        description: 'The last UTC hour, YYYY-MM-DDTHH.',
      },
      out: {
        type: 'string',
        minLength: 1,
        maxLength: 4096,
        description: 'The folder to write, absolute or relative to the workspace.',
      },
      validate: { type: 'boolean', default: false, description: 'Check every item against the MDS 2.0 schemas.' },
    },
    required: ['endpoint', 'from', 'to', 'out'],
    additionalProperties: false,
  },
  annotations: NETWORK,
  network: true,
  async run(input, context, call) {
    const { entry, credential, client } = await reach(context, input.environment);
    if (entry.environment.api !== 'mds')
      throw new MobilityError(
        'AGENT_INPUT_INVALID',
        l10n.t('harvest_hours reads the MDS Provider API; "{0}" is a MaaS environment.', entry.environment.name),
      );
    const summary = await harvestHours({
      client: client(),
      environment: entry.environment,
      credential,
      endpoint: HARVEST_ENDPOINTS[String(input.endpoint)],
      from: String(input.from),
      to: String(input.to),
      outDir: path.resolve(context.root, String(input.out)),
      validate: input.validate === true,
      signal: call.signal,
      onProgress: (p) => {
        if (p.phase === 'hour' || p.phase === 'start' || p.phase === 'done')
          call.progress?.(
            p.hoursDone,
            p.hoursTotal,
            l10n.t('{0} of {1} hours, {2} items', p.hoursDone, p.hoursTotal, p.items),
          );
      },
    });
    return {
      folder: summary.outDir,
      endpoint: summary.endpoint,
      from: summary.from,
      to: summary.to,
      hours: summary.hours,
      coverage: summary.coverage,
      items: summary.items,
      complete: summary.complete,
      interrupted: summary.interrupted ?? false,
      notDone: summary.notDone.slice(0, 20),
      conformance: summary.conformance
        ? {
            conforms: summary.conformance.conforms,
            findings: summary.conformance.findingCount,
            rules: summary.conformance.rules.slice(0, 10),
          }
        : null,
      next: l10n.t('Read it with describe_harvest, run_check or compute_metrics on folder {0}.', summary.outDir),
    };
  },
};

export const NETWORK_TOOLS: readonly AgentTool[] = [sendRequest, runContractTests, harvestHoursTool];
