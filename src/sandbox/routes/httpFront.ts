/**
 * The sandbox's HTTP front: each request to its answer (the report card, the data-faults listing, the index of the
 * environments, then an environment's token check and its routes), and the answer written with the sandbox's clock,
 * graded and logged. Started by sandboxServer.ts, which re-exports its types.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiKind } from '../../core/environment';
import { maskKeyId } from '../../core/base';
import type { AuthRuleId } from '../../core/auth';
import { withoutTrailingSlashes } from '../../core/environment';
import type { ClientGrader } from '../auth/clientGrade';
import { clientReportText } from '../auth/clientReportText';
import type { DemoCredential } from '../auth/demoCredential';
import type { TokenCheck, TokenVerifier } from '../auth/tokenVerifier';
import { DATA_FAULTS_PATH, dataFaultsReply } from '../faults/faultListing';
import type { FaultInjector } from '../faults/requestFaults';
import type { SyntheticFleet } from '../world/syntheticFleet';
import type { MdsErrorBody, Reply } from './mdsResponses';
import { errorReply, JSON_CONTENT_TYPE, maasVehiclesPage, MAX_PAGE_SIZE, parsePage } from './mdsResponses';
import { MDS_ROUTES, routeMds } from './mdsRoutes';
import { unauthorized } from './replies';

/** Where a grading sandbox serves its report card (JSON; `?format=text` for the text). */
export const REPORT_PATH = '/_sandbox/report';

/** One answered request, for logs. Holds no token. */
export interface SandboxRequestLog {
  method: string;
  path: string;
  status: number;
  environment?: SandboxEnvironment['id'];
  /** For 401s: the broken rule. */
  rule?: AuthRuleId;
  /** The kid of the token when it had one, masked (`ab12…f9c0`): a key id is a secret (spec 5.7). */
  kid?: string;
  /** For errors: the error description sent to the client. */
  description?: string;
}

/** One environment the sandbox serves; its base URL is also its audience (spec 5.3). */
export interface SandboxEnvironment {
  id: 'mds-staging' | 'mds-production' | 'maas-staging';
  api: ApiKind;
  stage: 'staging' | 'production';
  baseUrl: string;
  /** `host:port` of the environment's gRPC server (plaintext), unless the sandbox runs without gRPC. */
  grpcTarget?: string;
  /**
   * With `grpcTarget`: the `.proto` files its services are defined in (absolute) and the folder their imports resolve
   * from. Its clients read the schema by reflection; programs (Copy as Code) load or compile these files.
   */
  grpcProtos?: { protoFiles: string[]; importPaths: string[] };
  /** A device_id the environment serves (its first vehicle), for examples such as a starter request file's `@device_id`. */
  exampleDeviceId?: string;
}

/** An answer with what the grader needs: the token check and the audience, or that it is the report itself. */
type Routed = Reply & {
  environment?: SandboxEnvironment['id'];
  check?: TokenCheck;
  audience?: string;
  report?: boolean;
};

/** What the front answers from. */
export interface HttpFront {
  fleet: SyntheticFleet;
  now: () => number;
  historyDays: number;
  pageSize: number;
  faults: FaultInjector;
  demo: DemoCredential;
  /** Undefined: every request is accepted (the sandbox's verifyTokens: false). */
  verifier?: TokenVerifier;
  /** With the sandbox's grade option: records every request's verdict. */
  grader?: ClientGrader;
  /** The sandbox's options: their onRequest, if any, is told of every answered request. */
  options: { onRequest?: (entry: SandboxRequestLog) => void };
  /** The sandbox's origin and environments, known once the servers listen. */
  served: () => { origin: string; environments: SandboxEnvironment[] };
}

/** The handler of the sandbox's HTTP server: answers each request (a failure of its own as a 500 with an MDS body). */
export function httpFront(front: HttpFront): (req: IncomingMessage, res: ServerResponse) => void {
  const { fleet, now, historyDays, pageSize, faults, demo, verifier, grader, options, served } = front;

  const route = async (req: IncomingMessage): Promise<Routed> => {
    const { origin, environments } = served();
    const method = req.method ?? 'GET';
    if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) {
      return errorReply(400, 'bad_request', 'The request has no Host header, which HTTP/1.1 requires (RFC 9112 3.2).', [
        'header: Host',
      ]);
    }
    const url = new URL(req.url ?? '/', origin);
    const path = withoutTrailingSlashes(url.pathname) || '/';
    if (method !== 'GET' && method !== 'HEAD') {
      return errorReply(
        405,
        'method_not_allowed',
        `The sandbox answers GET and HEAD only, not ${method}.`,
        [`path: ${path}`],
        { Allow: 'GET, HEAD' },
      );
    }
    if (path === REPORT_PATH) {
      if (!grader)
        return errorReply(
          404,
          'not_found',
          'This sandbox keeps no report card: start it with --grade (the grade option).',
          [`path: ${path}`],
        );
      const report = grader.report();
      return url.searchParams.get('format') === 'text'
        ? {
            status: 200,
            contentType: 'text/plain; charset=utf-8',
            body: undefined,
            text: clientReportText(report),
            report: true,
          }
        : { status: 200, contentType: JSON_CONTENT_TYPE, body: report, report: true };
    }
    if (path === DATA_FAULTS_PATH)
      return { ...dataFaultsReply(url.searchParams, { fleet, now, historyDays }), report: true };
    if (path === '/') {
      return {
        status: 200,
        contentType: JSON_CONTENT_TYPE,
        body: {
          name: 'Mobility API Explorer sandbox',
          environments: environments.map((e) => ({
            ...e,
            audience: e.baseUrl,
            vehicles: e.api === 'mds' ? `${e.baseUrl}/vehicles` : `${e.baseUrl}/v1alpha2/vehicles`,
          })),
          demo: { type: demo.type, kid: demo.kid, issuer: demo.issuer },
          fleet_size: fleet.size,
        },
      };
    }
    const segments = path.split('/').slice(1);
    const env = environments.find((e) => e.id === segments[0]);
    if (!env) {
      return errorReply(
        404,
        'not_found',
        `Nothing is served at ${path}. The environments are under ${environments.map((e) => `/${e.id}`).join(', ')}.`,
        [`path: ${path}`],
      );
    }
    let checked: { check: TokenCheck; audience: string } | undefined;
    const answer = (reply: Reply): Routed => ({ ...reply, environment: env.id, ...checked });
    // Node joins repeated Authorization headers with ", ": refuse them instead of guessing which one counts.
    const authorizations = req.headersDistinct.authorization ?? [];
    if (authorizations.length > 1) {
      return answer(
        errorReply(
          400,
          'bad_request',
          `The request has ${authorizations.length} Authorization headers; send exactly one, "Authorization: Bearer <JWT>".`,
          [
            'rule: one Authorization header (RFC 9110 5.3: it is not a list-based field)',
            `count: ${authorizations.length}`,
          ],
        ),
      );
    }
    if (verifier) {
      const check = await verifier.verify(req.headers.authorization, { api: env.api, audience: env.baseUrl });
      checked = { check, audience: env.baseUrl };
      if (!check.ok) return answer(unauthorized(check.refusal));
    }
    const rest = segments.slice(1);
    const notFound = () =>
      answer(
        errorReply(404, 'not_found', `The ${env.id} environment has no resource at ${path}.`, [
          `path: ${path}`,
          `routes: ${env.api === 'mds' ? MDS_ROUTES : '/v1alpha2/vehicles'}`,
        ]),
      );
    const endpoint = `${env.baseUrl}/${rest.join('/')}`;

    if (env.api === 'maas') {
      if (rest.length !== 2 || rest[0] !== 'v1alpha2' || rest[1] !== 'vehicles') return notFound();
      const parsed = parsePage(url.searchParams, pageSize, fleet.size);
      if (!parsed.ok)
        return answer(
          errorReply(400, 'bad_param', `The page parameters are wrong: ${parsed.problem}.`, [
            `page_size is capped at ${MAX_PAGE_SIZE}`,
          ]),
        );
      return answer({
        status: 200,
        contentType: JSON_CONTENT_TYPE,
        body: maasVehiclesPage(fleet, endpoint, parsed.page, now()),
      });
    }
    return answer(
      routeMds(
        { fleet, now, historyDays, pageSize, faults },
        rest,
        url.searchParams,
        endpoint,
        req.headers.accept,
        notFound,
      ),
    );
  };

  const respond = (req: IncomingMessage, res: ServerResponse, reply: Routed) => {
    const text = reply.text ?? JSON.stringify(reply.body);
    res.writeHead(reply.status, {
      // From the sandbox's clock, not Node's: a client must see the skew against a sandbox whose clock was moved.
      Date: new Date(now()).toUTCString(),
      'Content-Type': reply.contentType,
      'Content-Length': Buffer.byteLength(text),
      'Cache-Control': 'no-store',
      ...reply.headers,
    });
    res.end(req.method === 'HEAD' ? undefined : text);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (grader && !reply.report) {
      // The query too: a token reused for page 2 must not look like page 1's.
      grader.record({
        transport: 'http',
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        atMs: now(),
        status: reply.status,
        authorization: req.headers.authorization,
        check: reply.check,
        audience: reply.audience,
      });
    }
    if (options.onRequest) {
      const body = reply.body as Partial<MdsErrorBody>;
      const entry: SandboxRequestLog = { method: req.method ?? 'GET', path, status: reply.status };
      if (reply.environment) entry.environment = reply.environment;
      if (reply.rule) entry.rule = reply.rule;
      if (reply.kid) entry.kid = maskKeyId(reply.kid);
      if (reply.status >= 400 && typeof body.error_description === 'string') entry.description = body.error_description;
      try {
        options.onRequest(entry);
      } catch {
        // A failing logger must not take the server down.
      }
    }
  };

  return (req, res) => {
    route(req).then(
      (reply) => respond(req, res, reply),
      (err: unknown) => {
        if (res.headersSent) {
          res.destroy();
          return;
        }
        const reason = err instanceof Error ? err.message : String(err);
        respond(
          req,
          res,
          errorReply(
            500,
            'server_error',
            'The sandbox failed to answer this request. This is a bug in the sandbox; the details say where.',
            [reason],
          ),
        );
      },
    );
  };
}
