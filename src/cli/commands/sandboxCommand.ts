import fs from 'node:fs';
import path from 'node:path';
import {
  clientReportText,
  DATA_FAULTS_PATH,
  parseDataFaults,
  REPORT_PATH,
  startSandbox,
} from '../../sandbox/sandboxServer';
import type { GrpcCallLog, RunningSandbox, SandboxRequestLog } from '../../sandbox/sandboxServer';
import { GRPC_REFLECTION_MODES, isGrpcReflectionMode } from '../../sandbox/grpc/grpcOptions';
import { maskKeyId, MobilityError } from '../../core/base';
import { parseTrustFiles } from '../../sandbox/auth/trustStore';
import type { CliIo } from '../support/cliIo';
import { parse, wholeNumber } from '../support/options';
import { readFile } from '../support/inputFiles';
import { printUsage } from '../support/usage';

/** `mobility-api sandbox`: a local provider until Ctrl-C. */
export async function sandboxCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parse(args, {
    port: { type: 'string' },
    fleet: { type: 'string' },
    'page-size': { type: 'string' },
    trust: { type: 'string', multiple: true },
    'demo-dir': { type: 'string' },
    json: { type: 'boolean' },
    log: { type: 'boolean' },
    grade: { type: 'boolean' },
    'grpc-port': { type: 'string' },
    'grpc-reflection': { type: 'string' },
    'grpc-reflection-auth': { type: 'boolean' },
    'data-faults': { type: 'string' },
  });
  if (values.help) return printUsage(io);
  const port = values.port === undefined ? 0 : wholeNumber(values.port, '--port', 0, 65535);
  const trust = parseTrustFiles(
    (values.trust ?? []).map((file) => ({ text: readFile(file, '--trust'), source: file })),
  );
  const grpcReflection = values['grpc-reflection'] ?? 'both';
  if (!isGrpcReflectionMode(grpcReflection)) {
    throw new MobilityError(
      'USAGE',
      `--grpc-reflection is ${JSON.stringify(grpcReflection)}; use one of ${GRPC_REFLECTION_MODES.join(', ')}.`,
    );
  }
  const dataFaults =
    values['data-faults'] === undefined
      ? undefined
      : parseDataFaults(values['data-faults'], (message) => new MobilityError('USAGE', message));
  const demoDir = values['demo-dir'] === undefined ? undefined : path.resolve(values['demo-dir']);
  const demoKeyFile = demoDir ? path.join(demoDir, 'demo-private-key.pem') : undefined;
  const sandbox = await startSandbox({
    port,
    fleetSize: values.fleet === undefined ? undefined : wholeNumber(values.fleet, '--fleet', 1, 1_000_000),
    pageSize: values['page-size'] === undefined ? undefined : wholeNumber(values['page-size'], '--page-size', 1, 1000),
    trust,
    demoDir,
    grade: values.grade,
    dataFaults,
    // A demo folder that already holds a key keeps it, so credentials made from it stay valid.
    demoPrivateKeyPem: demoKeyFile && fs.existsSync(demoKeyFile) ? fs.readFileSync(demoKeyFile, 'utf8') : undefined,
    // On stderr, so that stdout stays the one line (or text) that says where the sandbox listens.
    onRequest: values.log ? (entry) => io.err(values.json ? JSON.stringify(entry) : describeRequest(entry)) : undefined,
    grpcPort: values['grpc-port'] === undefined ? undefined : wholeNumber(values['grpc-port'], '--grpc-port', 0, 65533),
    grpcReflection,
    grpcReflectionAuth: values['grpc-reflection-auth'] ?? false,
    onGrpcCall: values.log
      ? (entry) => io.err(values.json ? JSON.stringify(entry) : describeGrpcCall(entry))
      : undefined,
  });
  if (values.json) {
    io.out(
      JSON.stringify({
        url: sandbox.url,
        port: sandbox.port,
        environments: sandbox.environments.map((e) => ({
          name: e.id,
          api: e.api,
          stage: e.stage,
          baseUrl: e.baseUrl,
          grpcTarget: e.grpcTarget,
          ...(e.grpcProtos
            ? { grpcProtoFiles: e.grpcProtos.protoFiles, grpcImportPaths: e.grpcProtos.importPaths }
            : {}),
        })),
        demo: { ...sandbox.demo, kid: maskKeyId(sandbox.demo.kid) },
      }),
    );
  } else {
    io.out(describeSandbox(sandbox));
    if (dataFaults)
      io.out(
        `\nData faults in the world (${dataFaults.join(', ')}): GET ${sandbox.url}${DATA_FAULTS_PATH}?from=<hour>&to=<hour> lists them.`,
      );
    if (values.grade)
      io.out(
        `\nGrading your client: GET ${sandbox.url}${REPORT_PATH} (?format=text) shows the report card so far; Ctrl-C prints it and stops.`,
      );
  }
  await io.untilStopped();
  // --grade: the report card of everything the sandbox saw, before it stops (one JSON document with --json).
  const report = sandbox.clientReport();
  await sandbox.close();
  if (report) io.out(values.json ? JSON.stringify(report) : `\n${clientReportText(report)}`);
  if (!values.json) io.err('sandbox stopped');
  return 0;
}

function describeSandbox(sandbox: RunningSandbox): string {
  const mds = sandbox.environments.find((e) => e.id === 'mds-staging') ?? sandbox.environments[0];
  const protos = mds.grpcProtos;
  return [
    `Sandbox provider listening on ${sandbox.url} (Ctrl-C stops it)`,
    '',
    ...sandbox.environments.map(
      (e) => `  ${e.id.padEnd(15)} ${e.api.padEnd(5)} ${e.baseUrl}${e.grpcTarget ? `  gRPC ${e.grpcTarget}` : ''}`,
    ),
    '',
    'gRPC: plaintext; services mobility.sandbox.v1.VehicleService (MDS) and MaasVehicleService (MaaS), same tokens as REST (aud = the base URL).',
    ...(protos
      ? [
          `  schema by reflection, or its .proto files (for code --grpc --proto): ${protos.protoFiles.join(' ')} (import path ${protos.importPaths.join(' ')})`,
        ]
      : []),
    `Demo credential (External Organization, kid ${maskKeyId(sandbox.demo.kid)}, iss ${sandbox.demo.issuer}):`,
    `  ${sandbox.demo.credentialFile}`,
    '',
    'Try:',
    `  mobility-api vehicles --api mds --base-url ${mds.baseUrl} --credential ${sandbox.demo.credentialFile}`,
    `  curl -H "Authorization: Bearer $(mobility-api token --credential ${sandbox.demo.credentialFile} --aud ${mds.baseUrl})" ${mds.baseUrl}/vehicles`,
  ].join('\n');
}

/** One answered request as a log line: `GET /mds-staging/vehicles 401 iat_not_increasing kid "ab12…f9c0": …`. Never a token, the kid masked. */
function describeRequest(entry: SandboxRequestLog): string {
  const rule = entry.rule ? ` ${entry.rule}` : '';
  const kid = entry.kid ? ` kid ${JSON.stringify(entry.kid)}` : '';
  const description = entry.description ? `: ${entry.description}` : '';
  return `${entry.method} ${entry.path} ${entry.status}${rule}${kid}${description}`;
}

/** One answered gRPC call: `gRPC mds-staging /mobility.sandbox.v1.VehicleService/ListVehicles UNAUTHENTICATED jti_replayed kid "ab…": …`. */
function describeGrpcCall(entry: GrpcCallLog): string {
  const rule = entry.rule ? ` ${entry.rule}` : '';
  const kid = entry.kid ? ` kid ${JSON.stringify(entry.kid)}` : '';
  const items = entry.items === undefined ? '' : ` (${entry.items} sent)`;
  const description = entry.description ? `: ${entry.description}` : '';
  return `gRPC ${entry.environment} ${entry.method} ${entry.status}${rule}${kid}${items}${description}`;
}
