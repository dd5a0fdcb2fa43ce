// The read-only tools that need nothing but this computer: environments, the catalogue, tokens (decoded, or what one
// would carry), why a request of the session was refused, and Copy as Code.
import * as l10n from '@vscode/l10n';
import { randomUUID } from 'node:crypto';
import {
  buildClaims,
  CREDENTIAL_TYPE_LABELS,
  DEFAULT_LIFETIME_SECONDS,
  decodeJwt,
  lintToken,
  NO_DOMAINS,
} from '../../core/auth';
import { errorMessage, maskKeyId, MobilityError } from '../../core/base';
import { keyIdDigest } from '../../core/clock';
import { CODE_LANGUAGES, codeProgramFor, generateCode } from '../../core/codegen';
import type { CodeLanguage } from '../../core/codegen';
import { audienceOf, normaliseBaseUrl } from '../../core/environment';
import type { ApiKind, Environment } from '../../core/environment';
import { catalogueOf } from '../../core/mds';
import { pageErrorView, RULE_TIPS } from '../../results/tokens/errorAdvice';
import { refusalExchangeOf } from '../../results/grpc/grpcRefusal';
import { credentialOf, isProduction, pickEnvironment } from '../agentEnvironments';
import type { AgentTool } from '../agentTool';
import { LOCAL_READ_ONLY } from '../agentTool';
import { requestOf, REQUEST_INPUT } from './requestInput';

const ENVIRONMENT_INPUT = {
  type: 'string',
  description: 'The environment id or name (list_environments); may be left out when there is only one.',
};

/** An environment's base URL, or why it has none that can be used (not set yet, not a URL). */
function baseUrlOf(e: Environment): { baseUrl: string | null; problem?: string } {
  try {
    return { baseUrl: normaliseBaseUrl(e.baseUrl, e.name) };
  } catch (err) {
    return { baseUrl: null, problem: errorMessage(err) };
  }
}

const listEnvironments: AgentTool = {
  name: 'list_environments',
  title: 'List environments',
  description:
    'Lists the environments this user can reach: id, name, API (mds or maas), stage, base URL (the token audience), gRPC target (for send_request with grpc_method) if any, whether it is production, and the name, type and masked key id of the bound credential. Never returns a key or a token.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  annotations: LOCAL_READ_ONLY,
  network: false,
  async run(_input, context) {
    const all = await context.environments();
    const environments = [];
    for (const entry of all) {
      const e = entry.environment;
      const credential = await context.credential(e.id).catch(() => undefined);
      environments.push({
        id: e.id,
        name: e.name,
        api: e.api,
        stage: e.stage,
        ...baseUrlOf(e),
        grpcTarget: e.grpc?.target ?? null,
        production: isProduction(entry),
        reachable: context.allowNetwork && (!isProduction(entry) || context.allowProduction),
        credential: credential
          ? {
              name: entry.credentialName ?? null,
              type: credential.type,
              typeLabel: CREDENTIAL_TYPE_LABELS[credential.type],
              issuer: credential.issuer,
              kid: maskKeyId(credential.kid),
            }
          : null,
      });
    }
    return {
      environments,
      networkTools: context.allowNetwork ? 'allowed' : 'off',
      productionAllowed: context.allowProduction,
    };
  },
};

const describeEndpoints: AgentTool = {
  name: 'describe_endpoints',
  title: 'Describe endpoints',
  description:
    'The catalogue of the MDS 2.0 Provider API and the MaaS API: each endpoint id, path, whether it pages, whether it is read hour by hour, and its parameters (name, where, required, format, default). Use the id with send_request or generate_client_code.',
  inputSchema: {
    type: 'object',
    properties: { api: { type: 'string', enum: ['mds', 'maas'], description: 'One API; both when left out.' } },
    additionalProperties: false,
  },
  annotations: LOCAL_READ_ONLY,
  network: false,
  run(input) {
    const apis: ApiKind[] = input.api === undefined ? ['mds', 'maas'] : [input.api as ApiKind];
    const now = Date.now();
    return Promise.resolve({
      endpoints: apis.flatMap((api) =>
        catalogueOf(api).map((e) => ({
          api: e.api,
          id: e.id,
          title: e.title,
          path: e.pathTemplate,
          paginates: e.paginates,
          hourEndpoint: e.hourEndpoint,
          beta: e.beta,
          parameters: e.parameters.map((p) => ({
            name: p.name,
            in: p.in,
            required: p.required,
            format: p.formatDescription,
            default: p.defaultValue?.(now) ?? null,
          })),
        })),
      ),
    });
  },
};

const decodeToken: AgentTool = {
  name: 'decode_token',
  title: 'Decode a token',
  description:
    'Decodes a JWT the user gives (it is not verified, not sent anywhere, and not repeated back) and checks it against the token rules of the spec: returns its header (key id masked), claims, times in words, and each finding with the rule it breaks and how to fix it.',
  inputSchema: {
    type: 'object',
    properties: {
      token: {
        type: 'string',
        maxLength: 20000,
        description: 'The compact JWT (header.payload.signature), with or without "Bearer ".',
      },
      audience: {
        type: 'string',
        maxLength: 2000,
        description: 'The base URL the token is meant for, to check aud against.',
      },
    },
    required: ['token'],
    additionalProperties: false,
  },
  annotations: LOCAL_READ_ONLY,
  network: false,
  run(input) {
    const decoded = decodeJwt(String(input.token));
    if (!decoded.ok) return Promise.resolve({ ok: false, reason: decoded.reason, code: decoded.code });
    const token = decoded.token;
    const findings = lintToken(token, {
      now: Date.now(),
      domains: NO_DOMAINS,
      ...(typeof input.audience === 'string' ? { knownAudiences: [input.audience] } : {}),
    });
    const header = { ...token.header, ...('kid' in token.header ? { kid: maskKeyId(token.header.kid) } : {}) };
    return Promise.resolve({
      ok: true,
      header,
      claims: token.payload,
      times: token.times,
      lifetimeSeconds: token.lifetimeSeconds,
      findings: findings.map((f) => ({
        severity: f.severity,
        spec: f.rule,
        message: f.message,
        ...(f.authRule ? { rule: f.authRule, fix: RULE_TIPS()[f.authRule] } : {}),
      })),
      verdict: findings.some((f) => f.severity === 'error')
        ? 'a server enforcing the spec refuses this token'
        : 'no rule of the spec is broken',
    });
  },
};

const previewToken: AgentTool = {
  name: 'preview_token',
  title: 'Preview a token',
  description:
    'Shows the header and claims a token for an environment would carry now (audience, issuer, lifetime; the key id masked). Nothing is signed and no token is returned: every request signs a fresh one with its own iat and jti.',
  inputSchema: { type: 'object', properties: { environment: ENVIRONMENT_INPUT }, additionalProperties: false },
  annotations: LOCAL_READ_ONLY,
  network: false,
  async run(input, context) {
    const entry = await pickEnvironment(context, input.environment);
    const credential = await credentialOf(context, entry);
    const iat = Math.floor(Date.now() / 1000);
    const { header, claims } = buildClaims(
      credential,
      audienceOf(entry.environment),
      iat,
      DEFAULT_LIFETIME_SECONDS,
      randomUUID(),
    );
    return {
      environment: entry.environment.id,
      header: { ...header, kid: maskKeyId(header.kid) },
      claims: {
        ...claims,
        jti: l10n.t('(a new random UUID for every token)'),
        iat: l10n.t('(the signing time, later than every earlier token of this key)'),
      },
      lifetimeSeconds: DEFAULT_LIFETIME_SECONDS,
      note: l10n.t('Not signed: a token is signed for each request and page, and never shown.'),
    };
  },
};

const explainRefusal: AgentTool = {
  name: 'explain_refusal',
  title: 'Explain a refusal',
  description:
    'For a request sent in this session (its result id from send_request, or the last one): if the server refused it (401 or 403, gRPC UNAUTHENTICATED or PERMISSION_DENIED), the rule of the spec it broke, the likely cause with the evidence, and the fix. Reads nothing from the network.',
  inputSchema: {
    type: 'object',
    properties: {
      result_id: {
        type: 'string',
        pattern: '^r[0-9]+$',
        description: 'The result id send_request returned (r1, r2…); the last result when left out.',
      },
    },
    additionalProperties: false,
  },
  annotations: LOCAL_READ_ONLY,
  network: false,
  async run(input, context) {
    const id = typeof input.result_id === 'string' ? input.result_id : undefined;
    const entry = id === undefined ? context.history.last() : context.history.get(id);
    if (!entry)
      throw new MobilityError(
        'AGENT_RESULT_UNKNOWN',
        id === undefined
          ? l10n.t('No request was sent in this session yet: send one with send_request first.')
          : l10n.t(
              'No result {0} in this session: the results kept are {1}.',
              id,
              context.history.ids().join(', ') || l10n.t('none'),
            ),
      );
    // A gRPC call refused (UNAUTHENTICATED, PERMISSION_DENIED) stands for the REST exchange of the same refusal.
    const page = entry.grpc ? refusalExchangeOf(entry.grpc) : entry.result.pages[entry.result.pages.length - 1];
    if (entry.grpc && !page)
      return {
        result_id: entry.id,
        status: entry.grpc.status.name,
        refused: false,
        why: l10n.t('The server did not refuse this call (status {0}).', entry.grpc.status.name),
      };
    if (!page) return { result_id: entry.id, refused: false, why: l10n.t('The request got no answer.') };
    if (page.status !== 401 && page.status !== 403)
      return {
        result_id: entry.id,
        status: page.status,
        refused: false,
        why: l10n.t('The server did not refuse this request (status {0}).', page.status),
      };
    const kid = page.token?.header.kid;
    const store = context.signing().store;
    const keyMark =
      store && kid !== undefined
        ? await store.readMarks().then(
            (marks) => marks[keyIdDigest(kid)],
            () => undefined,
          )
        : undefined;
    const view = pageErrorView(page, {
      audience: normaliseBaseUrl(entry.environment.baseUrl, entry.environment.name),
      api: entry.environment.api,
      credentialType: entry.credentialType,
      keyMark,
      now: Date.now(),
    });
    return {
      result_id: entry.id,
      refused: true,
      status: page.status,
      statusText: page.statusText,
      rule: view?.rule ?? (view?.explanation?.causeRule ? { id: view.explanation.causeRule } : null),
      cause: view?.explanation?.cause ?? null,
      fix: view?.tips ?? [],
      server: view?.mdsError ?? view?.message ?? null,
      evidence: view?.explanation?.evidence ?? [],
    };
  },
};

const generateClientCode: AgentTool = {
  name: 'generate_client_code',
  title: 'Generate client code',
  description:
    'Writes a complete program (python, typescript, go, java or shell) that signs a fresh token for every request and page as the spec asks, for an endpoint id or a path of an environment. The program holds no secret: it reads the key file and key id from its environment variables.',
  inputSchema: {
    type: 'object',
    properties: {
      language: { type: 'string', enum: [...CODE_LANGUAGES] },
      environment: ENVIRONMENT_INPUT,
      ...REQUEST_INPUT,
    },
    required: ['language'],
    additionalProperties: false,
  },
  annotations: LOCAL_READ_ONLY,
  network: false,
  async run(input, context) {
    const entry = await pickEnvironment(context, input.environment);
    const credential = await credentialOf(context, entry);
    const request = requestOf(entry.environment.api, input);
    const program = generateCode(
      input.language as CodeLanguage,
      codeProgramFor(entry.environment, credential, request),
    );
    return { language: input.language, environment: entry.environment.id, program };
  },
};

export const LOCAL_TOOLS: readonly AgentTool[] = [
  listEnvironments,
  describeEndpoints,
  decodeToken,
  previewToken,
  explainRefusal,
  generateClientCode,
];
