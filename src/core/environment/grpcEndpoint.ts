// An environment's gRPC endpoint as written in settings (`mobilityApi.grpc.environments` or a custom environment's
// `grpc`), checked: every problem named with where it is and what to write instead.
import * as l10n from '@vscode/l10n';
import type { GrpcEndpoint } from './environment';

const TARGET = /^(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+)(?::\d{1,5})?$/;

function stringList(value: unknown): string[] | undefined {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return undefined;
  return value.map((v: string) => v.trim()).filter((v) => v !== '');
}

/**
 * Reads one gRPC endpoint setting. `where` names it in problems (`mobilityApi.grpc.environments["mds-staging"]`).
 * `resolvePath` makes the file and folder paths absolute (relative ones are relative to the workspace).
 */
export function parseGrpcEndpoint(
  raw: unknown,
  where: string,
  resolvePath: (p: string) => string = (p) => p,
): { endpoint?: GrpcEndpoint; problems: string[] } {
  const problems: string[] = [];
  if (typeof raw === 'string') raw = { target: raw };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { problems: [l10n.t('{0} must be an object such as {"target": "grpc.example.com:443"}.', where)] };
  }
  const r = raw as Record<string, unknown>;
  const target = typeof r.target === 'string' ? r.target.trim() : '';
  if (!target)
    return { problems: [l10n.t('{0}: "target" is required, as host:port (e.g. "grpc.example.com:443").', where)] };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target) || !TARGET.test(target)) {
    return {
      problems: [
        l10n.t(
          '{0}: "target" must be host:port without a scheme or path (e.g. "grpc.example.com:443"), not "{1}".',
          where,
          target,
        ),
      ],
    };
  }
  const port = /:(\d+)$/.exec(target.replace(/^\[[^\]]*\]/, ''))?.[1];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) {
    return { problems: [l10n.t('{0}: the port of "target" must be 1 to 65535, not {1}.', where, port)] };
  }
  const endpoint: GrpcEndpoint = { target };
  if (r.plaintext !== undefined) {
    if (typeof r.plaintext !== 'boolean') problems.push(l10n.t('{0}: "plaintext" must be true or false.', where));
    else if (r.plaintext) endpoint.plaintext = true;
  }
  if (r.caFile !== undefined && r.caFile !== '') {
    if (typeof r.caFile !== 'string') problems.push(l10n.t('{0}: "caFile" must be the path of a PEM file.', where));
    else endpoint.caFile = resolvePath(r.caFile.trim());
  }
  for (const key of ['protoFiles', 'importPaths'] as const) {
    if (r[key] === undefined) continue;
    const list = stringList(r[key]);
    if (!list) problems.push(l10n.t('{0}: "{1}" must be a list of paths.', where, key));
    else if (list.length) endpoint[key] = list.map(resolvePath);
  }
  if (r.protoset !== undefined && r.protoset !== '') {
    if (typeof r.protoset !== 'string')
      problems.push(l10n.t('{0}: "protoset" must be the path of a descriptor set file.', where));
    else endpoint.protoset = resolvePath(r.protoset.trim());
  }
  if (endpoint.protoFiles && endpoint.protoset)
    problems.push(l10n.t('{0}: give "protoFiles" or "protoset", not both.', where));
  if (endpoint.plaintext && endpoint.caFile)
    problems.push(l10n.t('{0}: "caFile" is for TLS; it cannot go with "plaintext": true.', where));
  return { endpoint, problems };
}
