import type { CodeProgram, GrpcCodeRequest } from './codeRequest';
import { blockComment, headerLines } from './codeRequest';
import {
  typescriptClaimConstants,
  typescriptClockLines,
  typescriptImports,
  typescriptKeyLines,
  typescriptRunLines,
} from './typescriptToken';

const str = (text: string) => JSON.stringify(text);
const list = (items: string[]) => `[${items.map(str).join(', ')}]`;

/** A TypeScript program for Node 20+ (@grpc/grpc-js, @grpc/proto-loader, jose, proper-lockfile), in Prettier's default style. */
export function typescriptGrpcProgram(program: CodeProgram<GrpcCodeRequest>): string {
  const { request } = program;
  const header = [
    ...headerLines(program),
    '',
    ...typescriptClockLines(),
    '',
    ...typescriptRunLines(['@grpc/grpc-js', '@grpc/proto-loader', 'jose', 'proper-lockfile']),
    ...(request.protoset
      ? [
          "It loads the server's schema at run time from the descriptor set below (read by server",
          'reflection), relative to the folder it runs in.',
        ]
      : [
          'It loads the .proto files at run time from the include folders below, relative to the folder',
          'it runs in.',
        ]),
  ];
  const options = [
    '  keepCase: true, // the field names of the .proto files',
    '  longs: String,',
    '  enums: String,',
    '});',
  ];
  const definition = request.protoset
    ? [
        `definition = protoLoader.loadFileDescriptorSetFromBuffer(fs.readFileSync(${str(request.protoset)}), {`,
        ...options,
      ]
    : [
        `definition = protoLoader.loadSync(${list(request.protoFiles.map((f) => f.name))}, {`,
        `  includeDirs: ${list(request.includeDirs)},`,
        ...options,
      ];
  const credentials = request.plaintext
    ? [
        '// Plaintext: this computer only (a token must not cross a network in clear).',
        'const client = new Service(TARGET, grpc.credentials.createInsecure());',
      ]
    : request.caFile
      ? [`const client = new Service(TARGET, grpc.credentials.createSsl(fs.readFileSync(${str(request.caFile)})));`]
      : ["// TLS with Node's root certificates.", 'const client = new Service(TARGET, grpc.credentials.createSsl());'];
  const method = request.methodName;
  const run = request.serverStreaming
    ? [
        'async function run(worker: number): Promise<void> {',
        '  const stream = await withToken(',
        `    (metadata) => client.${method}(REQUEST, metadata, { deadline: Date.now() + DEADLINE_MS }) as grpc.ClientReadableStream<object>,`,
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
        `      (metadata) => client.${method}(REQUEST, metadata, { deadline: Date.now() + DEADLINE_MS }, (err: grpc.ServiceError | null, answer: object) =>`,
        '        err ? reject(err) : resolve(answer),',
        '      ) as grpc.ClientUnaryCall,',
        '    ).catch(reject);',
        '  });',
        '  console.log(`worker ${worker}: ${JSON.stringify(reply)}`);',
        '}',
      ];
  return [
    blockComment(header),
    ...typescriptImports(),
    'import * as grpc from "@grpc/grpc-js";',
    'import * as protoLoader from "@grpc/proto-loader";',
    'import { SignJWT } from "jose";',
    'import { lock } from "proper-lockfile";',
    '',
    `const BASE_URL = ${str(program.baseUrl)};`,
    ...typescriptClaimConstants(program),
    `const TARGET = ${str(request.target)};`,
    `const SERVICE = ${str(request.service)};`,
    `const REQUEST = ${JSON.stringify(request.message, null, 2)};`,
    `const METADATA: [string, string][] = ${JSON.stringify(request.metadata)};`,
    request.serverStreaming
      ? 'const DEADLINE_MS = 300_000; // the whole stream: a call not done by then fails (raise it for long streams)'
      : 'const DEADLINE_MS = 30_000; // a call with no answer by then fails',
    '',
    ...typescriptKeyLines(program),
    '',
    'let definition: protoLoader.PackageDefinition;',
    'try {',
    ...definition.map((l) => `  ${l}`),
    '} catch (err) {',
    '  fail(`Cannot load the schema: ${(err as Error).message}`);',
    '}',
    'const Service = grpc.makeClientConstructor(',
    '  definition[SERVICE] as grpc.ServiceDefinition,',
    '  SERVICE,',
    ');',
    ...credentials,
    '',
    '/** Starts one call with a fresh token (spec 5.1 rules 3 and 4). */',
    'function withToken<T extends grpc.Call>(start: (metadata: grpc.Metadata) => T): Promise<T> {',
    '  // Spec 5.1 rule 6: each token of a key is issued later than the one before. Calls wait in one',
    "  // queue (across async tasks) and for the clock file's lock (across processes) until the answer",
    '  // before theirs has begun (its headers or its status), so that no later token reaches the',
    '  // server first.',
    '  const started = queue.then(async () => {',
    '    const unlock = await lockClock();',
    '    try {',
    '      const token = await signToken();',
    '      const metadata = new grpc.Metadata();',
    '      for (const [name, value] of METADATA) metadata.add(name, value);',
    '      metadata.set("authorization", `Bearer ${token}`);',
    '      const call = start(metadata);',
    '      const begun = new Promise((begin) => call.once("metadata", begin).once("status", begin));',
    '      return { call, answered: begun.then(() => unlock()) };',
    '    } catch (err) {',
    '      await unlock();',
    '      throw err;',
    '    }',
    '  });',
    '  queue = started.then((s) => s.answered).catch(() => undefined);',
    '  return started.then((s) => s.call);',
    '}',
    '',
    ...run,
    '',
    '/** A status other than OK as its name and message, such as "UNAUTHENTICATED iat_not_increasing: …". */',
    'function statusOf(err: unknown): string {',
    '  const { code, details } = err as Partial<grpc.ServiceError>;',
    '  return typeof code === "number" ? `${grpc.status[code]} ${details}` : (err as Error).message;',
    '}',
    '',
    'const workers = workerCount();',
    'Promise.all(',
    '  Array.from({ length: workers }, (_, n) =>',
    '    run(n + 1).catch((err: unknown) => {',
    '      throw new Error(`worker ${n + 1}: ${statusOf(err)}`);',
    '    }),',
    '  ),',
    ').then(',
    '  () => client.close(),',
    '  (err: Error) => fail(err.message),',
    ');',
    '',
  ].join('\n');
}
