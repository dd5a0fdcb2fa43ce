// The environments a user configures in settings (the three built-in ones' base URLs and `customEnvironments`), read
// and checked here, without `vscode`, so that every rule about them is tested in plain Node. A base URL with a user
// name or password is refused at once: such an environment is never listed, shown, used or turned into a program.
import * as l10n from '@vscode/l10n';
import type { ApiKind, Environment, GrpcEndpoint } from './environment';
import { baseUrlUserInfoProblem, hasUserInfo } from './environment';
import { parseGrpcEndpoint } from './grpcEndpoint';

/** A built-in environment: its base URL is the setting `setting`, empty until the user sets it. */
export interface BuiltInEnvironment {
  id: string;
  api: ApiKind;
  stage: string;
  name: string;
  setting: string;
}

/** The settings as read, each still `unknown`: whatever a settings file holds. */
export interface EnvironmentSettings {
  /** The section's name, for problems (`mobilityApi`). */
  section: string;
  /** Setting name (e.g. `mds.stagingBaseUrl`) → its value. */
  builtInBaseUrls: Record<string, unknown>;
  /** `grpc.environments`: built-in environment id → its gRPC endpoint. */
  grpcEnvironments: unknown;
  /** `customEnvironments`. */
  customEnvironments: unknown;
  /** The headers every request of an API carries by default (the MDS Accept header). */
  headersFor: (api: ApiKind) => Record<string, string>;
  audienceAsList: boolean;
  /** Makes a gRPC setting's file path absolute. */
  resolvePath?: (p: string) => string;
}

/** A custom environment as written in `customEnvironments`. */
interface CustomEnvironmentSetting {
  id?: unknown;
  name?: unknown;
  api?: unknown;
  stage?: unknown;
  baseUrl?: unknown;
  audience?: unknown;
  headers?: unknown;
  grpc?: unknown;
}

/**
 * The built-in environments (base URL possibly empty) followed by the valid custom ones, and the problems found, each
 * naming its setting and what to write instead. A base URL (or audience) with a user name or password makes a problem
 * that does not repeat it: a built-in environment keeps an empty base URL, a custom one is left out.
 */
export function readConfiguredEnvironments(
  settings: EnvironmentSettings,
  builtIns: readonly BuiltInEnvironment[],
): { environments: Environment[]; problems: string[] } {
  const { section, headersFor, audienceAsList } = settings;
  const problems: string[] = [];
  const environments: Environment[] = builtIns.map((b) => {
    const raw = settings.builtInBaseUrls[b.setting];
    let baseUrl = typeof raw === 'string' ? raw.trim() : '';
    if (hasUserInfo(baseUrl)) {
      problems.push(`${section}.${b.setting}: ${baseUrlUserInfoProblem(b.name)}`);
      baseUrl = '';
    }
    return { id: b.id, name: b.name, api: b.api, stage: b.stage, baseUrl, audienceAsList, headers: headersFor(b.api) };
  });
  const grpcOf = (raw: unknown, where: string): GrpcEndpoint | undefined => {
    const read = parseGrpcEndpoint(raw, where, settings.resolvePath);
    problems.push(...read.problems);
    return read.problems.length ? undefined : read.endpoint;
  };
  const grpcSettings = isObject(settings.grpcEnvironments) ? settings.grpcEnvironments : {};
  for (const e of environments) {
    const raw = Object.hasOwn(grpcSettings, e.id) ? grpcSettings[e.id] : undefined;
    if (raw === undefined || raw === null || raw === '') continue;
    const grpc = grpcOf(raw, `${section}.grpc.environments["${e.id}"]`);
    if (grpc) e.grpc = grpc;
  }
  const custom = Array.isArray(settings.customEnvironments) ? (settings.customEnvironments as unknown[]) : [];
  custom.forEach((entry, index) => {
    const e = (isObject(entry) ? entry : {}) as CustomEnvironmentSetting;
    const where = `${section}.customEnvironments[${index}]`;
    if (e.api !== 'mds' && e.api !== 'maas') return problems.push(l10n.t('{0}: "api" must be "mds" or "maas".', where));
    if (typeof e.name !== 'string' || !e.name.trim()) return problems.push(l10n.t('{0}: "name" is required.', where));
    if (typeof e.baseUrl !== 'string') return problems.push(l10n.t('{0}: "baseUrl" is required.', where));
    const name = e.name.trim();
    if (hasUserInfo(e.baseUrl)) return problems.push(`${where}: ${baseUrlUserInfoProblem(name)}`);
    const id =
      typeof e.id === 'string' && e.id.trim()
        ? e.id.trim()
        : `custom-${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
    if (environments.some((x) => x.id === id))
      return problems.push(l10n.t('{0}: the id "{1}" is used twice.', where, id));
    const audience =
      typeof e.audience === 'string' || (Array.isArray(e.audience) && e.audience.every((a) => typeof a === 'string'))
        ? e.audience
        : undefined;
    if (audience !== undefined && (Array.isArray(audience) ? audience : [audience]).some(hasUserInfo)) {
      return problems.push(
        l10n.t(
          '{0}: "audience" holds a user name or password (the part before "@"). Remove them: the audience is sent in every token, and credentials never go in a URL.',
          where,
        ),
      );
    }
    const headers: Record<string, string> = { ...headersFor(e.api) };
    if (isObject(e.headers)) {
      for (const [k, v] of Object.entries(e.headers)) if (typeof v === 'string') headers[k] = v;
    }
    const environment: Environment = {
      id,
      name,
      api: e.api,
      stage: typeof e.stage === 'string' && e.stage ? e.stage : 'custom',
      baseUrl: e.baseUrl.trim(),
      audience,
      audienceAsList,
      headers,
    };
    const grpc = e.grpc === undefined ? undefined : grpcOf(e.grpc, `${where}.grpc`);
    if (grpc) environment.grpc = grpc;
    environments.push(environment);
    return undefined;
  });
  return { environments, problems };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
