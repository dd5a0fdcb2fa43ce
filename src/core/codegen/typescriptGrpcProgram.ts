import type { CodeProgram, GrpcCodeRequest } from './codeRequest';
import { blockComment, headerLines, WORKERS_VARIABLE } from './codeRequest';
import { typescriptClaimConstants, typescriptKeyLines, typescriptSignLines } from './typescriptToken';

const str = (text: string) => JSON.stringify(text);
const list = (items: string[]) => `[${items.map(str).join(', ')}]`;

/** A TypeScript program for Node 20+ (@grpc/grpc-js, @grpc/proto-loader, jose), in Prettier's default style. */
export function typescriptGrpcProgram(program: CodeProgram<GrpcCodeRequest>): string {
  const { request } = program;
  const header = [
    ...headerLines(program),
    '',
    'Needs Node 20+, @grpc/grpc-js, @grpc/proto-loader and jose (npm install @grpc/grpc-js',
    ...(request.protoset
      ? ['@grpc/proto-loader jose). It loads the server\'s schema at run time from the descriptor set', 'below (read by server reflection), relative to the folder it runs in. Run with `npx tsx', '<file>.ts`, or compile with tsc as an ES module.']
      : ['@grpc/proto-loader jose). It loads the .proto files at run time from the include folders', 'below, relative to the folder it runs in. Run with `npx tsx <file>.ts`, or compile with tsc', 'as an ES module.']),
  ];
  const options = ['  keepCase: true, // the field names of the .proto files', '  longs: String,', '  enums: String,', '});'];
  const definition = request.protoset
    ? [`const definition = protoLoader.loadFileDescriptorSetFromBuffer(readFileSync(${str(request.protoset)}), {`, ...options]
    : [`const definition = protoLoader.loadSync(${list(request.protoFiles.map((f) => f.name))}, {`, `  includeDirs: ${list(request.includeDirs)},`, ...options];
  const credentials = request.plaintext
    ? ['// Plaintext: this computer only (a token must not cross a network in clear).', 'const client = new Service(TARGET, grpc.credentials.createInsecure());']
    : request.caFile
      ? [`const client = new Service(TARGET, grpc.credentials.createSsl(readFileSync(${str(request.caFile)})));`]
      : ["// TLS with Node's root certificates.", 'const client = new Service(TARGET, grpc.credentials.createSsl());'];
  const method = request.methodName;
  const run = request.serverStreaming
    ? [
        'async function run(worker: number): Promise<void> {',
        '  const stream = await withToken(',
        `    (metadata) => client.${method}(REQUEST, metadata) as grpc.ClientReadableStream<object>,`,
        '  );',
        '  let count = 0;',
        '  for await (const item of stream) {',
        '    count++;',
        '    console.log(`worker ${worker} message ${count}: ${JSON.stringify(item)}`);',
        '  }',
        '  console.log(`worker ${worker}: ${count} messages`);',
        '}',
      ]
    : [
        'async function run(worker: number): Promise<void> {',
        '  const reply = await new Promise<object>((resolve, reject) => {',
        '    withToken(',
        `      (metadata) => client.${method}(REQUEST, metadata, { deadline: Date.now() + 30_000 }, (err: grpc.ServiceError | null, answer: object) =>`,
        '        err ? reject(err) : resolve(answer),',
        '      ) as grpc.ClientUnaryCall,',
        '    ).catch(reject);',
        '  });',
        '  console.log(`worker ${worker}: ${JSON.stringify(reply)}`);',
        '}',
      ];
  return [
    blockComment(header),
    'import { createPrivateKey, randomUUID } from "node:crypto";',
    'import { readFileSync } from "node:fs";',
    'import * as grpc from "@grpc/grpc-js";',
    'import * as protoLoader from "@grpc/proto-loader";',
    'import { SignJWT } from "jose";',
    '',
    `const BASE_URL = ${str(program.baseUrl)};`,
    ...typescriptClaimConstants(program),
    `const TARGET = ${str(request.target)};`,
    `const SERVICE = ${str(request.service)};`,
    `const REQUEST = ${JSON.stringify(request.message, null, 2)};`,
    `const METADATA: [string, string][] = ${JSON.stringify(request.metadata)};`,
    '',
    ...typescriptKeyLines(program),
    '',
    ...definition,
    'const Service = grpc.makeClientConstructor(',
    '  definition[SERVICE] as grpc.ServiceDefinition,',
    '  SERVICE,',
    ');',
    ...credentials,
    '',
    '/** Starts one call with a fresh token (spec 5.1 rules 3 and 4). */',
    'function withToken<T extends grpc.Call>(start: (metadata: grpc.Metadata) => T): Promise<T> {',
    '  // Spec 5.1 rule 6: each token of a key is issued later than the one before, across async',
    '  // tasks. Calls wait in one queue until the answer before theirs has begun (its headers or its',
    '  // status), so that no later token reaches the server first.',
    '  const call = queue.then(async () => {',
    ...typescriptSignLines(program),
    '    const metadata = new grpc.Metadata();',
    '    for (const [name, value] of METADATA) metadata.add(name, value);',
    '    metadata.set("authorization", `Bearer ${token}`);',
    '    return start(metadata);',
    '  });',
    '  queue = call',
    '    .then((c) => new Promise((begun) => c.once("metadata", begun).once("status", begun)))',
    '    .catch(() => undefined);',
    '  return call;',
    '}',
    '',
    ...run,
    '',
    '/** A status other than OK as its name and message, such as "UNAUTHENTICATED iat_not_increasing: …". */',
    'function statusOf(err: unknown): string {',
    '  const { code, details } = err as Partial<grpc.ServiceError>;',
    '  return code === undefined ? String(err) : `${grpc.status[code]} ${details}`;',
    '}',
    '',
    `const workers = Number(process.env.${WORKERS_VARIABLE} ?? "1");`,
    'Promise.all(',
    '  Array.from({ length: workers }, (_, n) =>',
    '    run(n + 1).catch((err: unknown) => {',
    '      throw new Error(`worker ${n + 1}: ${statusOf(err)}`);',
    '    }),',
    '  ),',
    ').then(',
    '  () => client.close(),',
    '  (err: Error) => {',
    '    console.error(err.message);',
    '    process.exit(1);',
    '  },',
    ');',
    '',
  ].join('\n');
}
