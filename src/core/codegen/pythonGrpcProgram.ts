import * as l10n from '@vscode/l10n';
import { MobilityError, shellQuote } from '../base';
import type { CodeProgram, GrpcCodeRequest } from './codeRequest';
import { headerLines, sharedClockLines } from './codeRequest';
import {
  PYTHON_KEY_IMPORTS,
  pythonClaimConstants,
  pythonKeyBlocks,
  pythonMainBlocks,
  pythonRunLines,
  pythonSignBlocks,
  pythonStdlibImports,
} from './pythonToken';

const str = (text: string) => JSON.stringify(text);
/** A shell word, quoted only when it needs to be. */
const word = (text: string) => (/^[\w./@%+=:,-]+$/.test(text) ? text : shellQuote(text));

/** JSON as a Python literal (JSON strings are Python strings as they are). */
function pythonLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true || value === false) return value ? 'True' : 'False';
  if (typeof value === 'string') return str(value);
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return `[${value.map(pythonLiteral).join(', ')}]`;
  return `{${Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => `${str(k)}: ${pythonLiteral(v)}`)
    .join(', ')}}`;
}

/** The package and module of the stubs protoc writes for a .proto file: `mobility.sandbox.v1`, `vehicles`. */
function moduleOf(protoName: string): { from: string; module: string } {
  const parts = protoName.replace(/\.proto$/, '').split('/');
  if (!parts.every((p) => /^[A-Za-z_]\w*$/.test(p))) {
    throw new MobilityError(
      'CODE_GRPC_INVALID',
      l10n.t(
        'Python cannot import the stubs of {0}: every folder and file name under the import path must be a Python name (letters, digits, _). Give an --import-path that makes it one.',
        protoName,
      ),
    );
  }
  return { from: parts.slice(0, -1).join('.'), module: parts[parts.length - 1] };
}

/** The protoc command lines (Debian's and pip's) that write the `_pb2` and `_pb2_grpc` modules the program imports. */
function protocLines(request: GrpcCodeRequest): string[] {
  const includes = request.protoset
    ? `--descriptor_set_in=${word(request.protoset)}`
    : request.includeDirs.map((d) => `-I ${word(d)}`).join(' ');
  const files = request.protoFiles
    .filter((f) => !f.name.startsWith('google/protobuf/'))
    .map((f) => word(f.given))
    .join(' ');
  const args = `${includes} --python_out=. --grpc_python_out=. ${files}`;
  return [
    'Generate the modules it imports first, in the folder it runs in. On Debian (protobuf-compiler',
    'protobuf-compiler-grpc python3-grpcio python3-protobuf python3-jwt python3-cryptography):',
    '',
    `    protoc --plugin=protoc-gen-grpc_python=/usr/bin/grpc_python_plugin ${args}`,
    '',
    'With pip (pip install grpcio grpcio-tools pyjwt cryptography):',
    '',
    `    python -m grpc_tools.protoc ${args}`,
  ];
}

/** A Python 3 program (grpcio with protoc's stubs, PyJWT), formatted as black formats it. */
export function pythonGrpcProgram(program: CodeProgram<GrpcCodeRequest>): string {
  const { request } = program;
  const service = moduleOf(request.serviceProto);
  const input = request.inputProto.startsWith('google/protobuf/')
    ? { from: 'google.protobuf', module: request.inputProto.slice(16, -6) }
    : moduleOf(request.inputProto);
  const imports = new Map<string, Set<string>>();
  for (const [from, module] of [
    [service.from, `${service.module}_pb2_grpc`],
    [input.from, `${input.module}_pb2`],
  ])
    imports.set(from, (imports.get(from) ?? new Set()).add(module));
  const importLines = [...imports]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([from, modules]) =>
      from ? `from ${from} import ${[...modules].sort().join(', ')}` : `import ${[...modules].sort().join(', ')}`,
    );
  const stubName = request.service.slice(request.packageName ? request.packageName.length + 1 : 0);
  const entries = Object.entries(request.message);
  const channel = request.plaintext
    ? [
        '# Plaintext: this computer only (a token must not cross a network in clear).',
        'CHANNEL = grpc.insecure_channel(TARGET)',
      ]
    : request.caFile
      ? [
          'try:',
          '    with open(CA_FILE, "rb") as ca_file:',
          '        CREDENTIALS = grpc.ssl_channel_credentials(ca_file.read())',
          'except OSError as err:',
          '    sys.exit(f"Cannot read the CA file {CA_FILE}: {err.strerror}.")',
          'CHANNEL = grpc.secure_channel(TARGET, CREDENTIALS)',
        ]
      : [
          "# TLS with the system's root certificates.",
          'CHANNEL = grpc.secure_channel(TARGET, grpc.ssl_channel_credentials())',
        ];
  const send = request.serverStreaming
    ? [
        `        answer = STUB.${request.methodName}(request, metadata=metadata)`,
        '        answer.initial_metadata()  # the answer has begun: the server has checked the token',
        '        return answer',
      ]
    : [`        return STUB.${request.methodName}(request, metadata=metadata, timeout=30)`];
  const received = request.serverStreaming
    ? [
        '    count = 0',
        '    try:',
        '        for count, item in enumerate(call(request), 1):',
        '            print(f"worker {worker} message {count}: {as_json(item)}")',
        '    except grpc.RpcError as err:',
        '        sys.exit(f"worker {worker}: {err.code().name} {err.details()}")',
        '    print(f"worker {worker}: {count} messages")',
      ]
    : [
        '    try:',
        '        reply = call(request)',
        '    except grpc.RpcError as err:',
        '        sys.exit(f"worker {worker}: {err.code().name} {err.details()}")',
        '    print(f"worker {worker}: {as_json(reply)}")',
      ];
  const keyBlocks = pythonKeyBlocks(program);
  const header = [
    ...headerLines(program),
    '',
    ...sharedClockLines(),
    '',
    ...protocLines(request),
    '',
    ...pythonRunLines(program),
  ];
  return [
    '"""' + [...header, '"""'].join('\n'),
    '',
    pythonStdlibImports(program).join('\n'),
    '',
    ['import grpc', ...PYTHON_KEY_IMPORTS, 'from google.protobuf import json_format'].join('\n'),
    '',
    importLines.join('\n'),
    '',
    [
      `BASE_URL = ${str(program.baseUrl)}`,
      ...pythonClaimConstants(program),
      `TARGET = ${str(request.target)}`,
      ...(request.caFile && !request.plaintext ? [`CA_FILE = ${str(request.caFile)}`] : []),
      entries.length
        ? ['REQUEST = {', ...entries.map(([k, v]) => `    ${str(k)}: ${pythonLiteral(v)},`), '}'].join('\n')
        : 'REQUEST = {}',
      `METADATA = ${request.metadata.length ? `(${request.metadata.map(([n, v]) => `(${str(n)}, ${str(v)}),`).join(' ')})` : '()'}`,
    ].join('\n'),
    '',
    '',
    [
      ...keyBlocks.slice(0, -1),
      // Two blank lines: the last key block ends with a function (the clock's lock), as black wants.
      [
        keyBlocks[keyBlocks.length - 1],
        '',
        '',
        ...channel,
        `STUB = ${service.module}_pb2_grpc.${stubName}Stub(CHANNEL)`,
      ].join('\n'),
      ...pythonSignBlocks(program, 'call'),
      [
        'def call(request):',
        `    """One ${request.methodName} call with a fresh token, the clock held until the answer has begun."""`,
        '    with next_iat() as iat:',
        '        token = sign(iat)',
        '        metadata = METADATA + (("authorization", f"Bearer {token}"),)',
        ...send,
      ].join('\n'),
      [
        'def as_json(message):',
        '    return json_format.MessageToJson(',
        '        message, preserving_proto_field_name=True, indent=None',
        '    )',
      ].join('\n'),
      [
        'def run(worker):',
        `    request = json_format.ParseDict(REQUEST, ${input.module}_pb2.${request.inputName}())`,
        ...received,
      ].join('\n'),
      ...pythonMainBlocks('run'),
    ].join('\n\n\n'),
    '',
  ].join('\n');
}
