import type { RestCodeProgram } from './codeRequest';
import { blockComment, headerLines, itemsWord } from './codeRequest';
import {
  typescriptClaimConstants,
  typescriptClockLines,
  typescriptImports,
  typescriptKeyLines,
  typescriptRunLines,
} from './typescriptToken';

const str = (text: string) => JSON.stringify(text);

/** A TypeScript program for Node 20+ (jose + fetch + proper-lockfile), in Prettier's default style. */
export function typescriptProgram(program: RestCodeProgram): string {
  const { request } = program;
  const header = [
    ...headerLines(program),
    '',
    ...typescriptClockLines(),
    '',
    ...typescriptRunLines(['jose', 'proper-lockfile']),
  ];
  return [
    blockComment(header),
    ...typescriptImports(),
    'import { SignJWT } from "jose";',
    'import { lock } from "proper-lockfile";',
    '',
    `const BASE_URL = ${str(program.baseUrl)};`,
    ...typescriptClaimConstants(program),
    `const FIRST_URL = BASE_URL + ${str(request.path)};`,
    'const HEADERS: Record<string, string> = {',
    ...Object.entries(request.headers).map(
      ([name, value]) => `  ${/^[A-Za-z_$][\w$]*$/.test(name) ? name : str(name)}: ${str(value)},`,
    ),
    '};',
    'const TIMEOUT_MS = 30_000; // a request with no whole answer by then fails',
    '',
    ...typescriptKeyLines(program),
    '',
    '/** One GET with a fresh token (spec 5.1 rules 3 and 4). */',
    'function get(url: string): Promise<Response> {',
    '  // Spec 5.1 rule 6: each token of a key is issued later than the one before. Requests wait in',
    "  // one queue (across async tasks) and for the clock file's lock (across processes) until the",
    '  // answer before theirs has arrived, so that no later token reaches the server first.',
    '  const answer = queue.then(async () => {',
    '    const unlock = await lockClock();',
    '    try {',
    '      const token = await signToken();',
    '      return await fetch(url, {',
    '        headers: { ...HEADERS, Authorization: `Bearer ${token}` },',
    '        signal: AbortSignal.timeout(TIMEOUT_MS),',
    '      });',
    '    } catch (err) {',
    '      throw new Error(`GET ${url}: ${reasonOf(err)}`);',
    '    } finally {',
    '      await unlock();',
    '    }',
    '  });',
    '  queue = answer.catch(() => undefined);',
    '  return answer;',
    '}',
    '',
    '/** Why a request failed, in a few words: "connect ECONNREFUSED 127.0.0.1:443". */',
    'function reasonOf(err: unknown): string {',
    '  if ((err as Error).name === "TimeoutError") return `no answer within ${TIMEOUT_MS / 1000} s`;',
    '  const cause = (err as { cause?: Error }).cause;',
    '  return cause?.message ?? (err as Error).message;',
    '}',
    '',
    fetchFunction(program),
    '',
    'const workers = workerCount();',
    'Promise.all(Array.from({ length: workers }, (_, n) => fetchAll(n + 1))).catch(',
    '  (err: Error) => fail(err.message),',
    ');',
    '',
  ].join('\n');
}

function fetchFunction(program: RestCodeProgram): string {
  const { request } = program;
  const where = request.pages ? 'worker ${worker} page ${page}' : 'worker ${worker}';
  const bodyName = 'JSON.parse(text)';
  const received = request.csv
    ? ['console.log(text);']
    : request.itemsKey
      ? [
          `const items = ${bodyName}${/^[A-Za-z_$][\w$]*$/.test(request.itemsKey) ? `.${request.itemsKey}` : `[${str(request.itemsKey)}]`} ?? [];`,
          `console.log(\`${where}: \${items.length} ${itemsWord(request)}\`);`,
        ]
      : [`console.log(\`${where}: \${text}\`);`];
  const refused = ['if (!answer.ok) {', '  throw new Error(`worker ${worker}: ${answer.status} ${text}`);', '}'];
  const read = 'const text = await answer.text().catch((err) => fail(`worker ${worker}: ${reasonOf(err)}`));';
  if (!request.pages) {
    return [
      'async function fetchAll(worker: number): Promise<void> {',
      '  const answer = await get(FIRST_URL);',
      `  ${read}`,
      ...[...refused, ...received].map((l) => `  ${l}`),
      '}',
    ].join('\n');
  }
  return [
    'async function fetchAll(worker: number): Promise<void> {',
    '  let url: string | undefined = FIRST_URL;',
    '  for (let page = 1; url; page++) {',
    '    const answer = await get(url); // a new token for every page',
    `    ${read}`,
    ...[...refused, 'const body = JSON.parse(text);', ...received.map((l) => l.replace(bodyName, 'body'))].map(
      (l) => `    ${l}`,
    ),
    '    url = body.links?.next ?? undefined;',
    '    if (url && !url.startsWith(BASE_URL + "/")) {',
    '      throw new Error(`worker ${worker}: links.next leaves ${BASE_URL}: ${url}`);',
    '    }',
    '  }',
    '}',
  ].join('\n');
}
