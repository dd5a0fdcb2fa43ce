// What the Environments tree and the method picker show of an environment's gRPC services: the schema's source,
// each service and each method with its call kind and message types. Plain data, no `vscode`.
import * as l10n from '@vscode/l10n';
import type { GrpcMethodInfo, GrpcServiceInfo, SchemaSource } from '../../core/grpc';
import { plural } from '../../shared/format';

/**
 * One row: its label, the grey text beside it and the tooltip's lines. Label and description stay short enough for
 * the default side bar (a method's "ListVehicleStatus  stream"); the detail is in the tooltip.
 */
export interface GrpcRow {
  label: string;
  description: string;
  tooltip: string[];
  /** What a screen reader says, when more than the label and description. */
  spoken?: string;
}

/** "reflection v1", "reflection v1alpha", ".proto files", "protoset". */
export function describeGrpcSource(source: SchemaSource): string {
  switch (source.kind) {
    case 'reflection':
      return l10n.t('reflection {0}', source.version);
    case 'proto':
      return l10n.t('.proto files');
    case 'protoset':
      return l10n.t('protoset');
  }
}

/** "unary", "server streaming", "client streaming", "bidirectional streaming". */
export function describeCallKind(method: Pick<GrpcMethodInfo, 'clientStreaming' | 'serverStreaming'>): string {
  if (method.clientStreaming && method.serverStreaming) return l10n.t('bidirectional streaming');
  if (method.clientStreaming) return l10n.t('client streaming');
  if (method.serverStreaming) return l10n.t('server streaming');
  return l10n.t('unary');
}

/** The last part of a full name: "mobility.sandbox.v1.VehicleService" → "VehicleService". */
export function shortName(fullName: string): string {
  return fullName.slice(fullName.lastIndexOf('.') + 1);
}

/** The package of a full name, or '' ("mobility.sandbox.v1"). */
export function packageOf(fullName: string): string {
  const at = fullName.lastIndexOf('.');
  return at < 0 ? '' : fullName.slice(0, at);
}

/** The environment's "gRPC" row: the target; where the services came from, once they did, in the tooltip. */
export function grpcNodeRow(target: string, source?: SchemaSource): GrpcRow {
  const from = source ? describeGrpcSource(source) : undefined;
  return {
    label: 'gRPC',
    description: target,
    tooltip: [
      l10n.t('gRPC target {0}', target),
      from
        ? l10n.t('Services from {0}', from)
        : l10n.t(
            'Expand to load the services (server reflection, or the .proto files or protoset set for this environment).',
          ),
    ],
  };
}

/** A service: its short name, how many methods beside it; its full name and methods in the tooltip. */
export function serviceRow(service: GrpcServiceInfo): GrpcRow {
  return {
    label: shortName(service.name),
    description: plural(service.methods.length, 'method'),
    tooltip: [service.name, ...service.methods.map((m) => `${m.name} · ${describeCallKind(m)}`)],
  };
}

/** A call kind in a word, for the tree: "unary", "stream" (server streaming), "client stream", "bidi stream". */
function callKindWord(method: Pick<GrpcMethodInfo, 'clientStreaming' | 'serverStreaming'>): string {
  if (method.clientStreaming && method.serverStreaming) return l10n.t('bidi stream');
  if (method.clientStreaming) return l10n.t('client stream');
  if (method.serverStreaming) return l10n.t('stream');
  return l10n.t('unary');
}

/** A method: "ListVehicles  stream"; the full name, the kind and both types in the tooltip. */
export function methodRow(method: GrpcMethodInfo): GrpcRow {
  return {
    label: method.name,
    description: callKindWord(method),
    tooltip: [
      method.fullName,
      describeCallKind(method),
      l10n.t('Request: {0}{1}', method.clientStreaming ? 'stream ' : '', method.inputType),
      l10n.t('Response: {0}{1}', method.serverStreaming ? 'stream ' : '', method.outputType),
    ],
    spoken: `${method.name}, ${describeCallKind(method)} · ${shortName(method.inputType)}`,
  };
}

/** The items of a method picker: every method of every service, the service and call kind beside each. */
export function methodPickRows(services: GrpcServiceInfo[]): Array<GrpcRow & { method: GrpcMethodInfo }> {
  return services.flatMap((s) =>
    s.methods.map((m) => ({
      label: m.name,
      description: `${shortName(s.name)} · ${describeCallKind(m)}`,
      tooltip: [`${m.inputType} → ${m.outputType}`],
      method: m,
    })),
  );
}
