import type { RestCodeProgram } from './codeRequest';
import { blockComment, headerLines, itemsWord, WORKERS_VARIABLE } from './codeRequest';
import { typescriptClaimConstants, typescriptKeyLines, typescriptSignLines } from './typescriptToken';

const str = (text: string) => JSON.stringify(text);

/** A TypeScript program for Node 20+ (jose + fetch), in Prettier's default style. */
export function typescriptProgram(program: RestCodeProgram): string {
  const { request } = program;
  const header = [...headerLines(program), '', 'Needs Node 20+ and jose (npm install jose); run with `npx tsx <file>.ts`, or compile', 'with tsc as an ES module.'];
  return [
    blockComment(header),
    'import { createPrivateKey, randomUUID } from "node:crypto";',
    'import { readFileSync } from "node:fs";',
    'import { SignJWT } from "jose";',
    '',
    `const BASE_URL = ${str(program.baseUrl)};`,
    ...typescriptClaimConstants(program),
    `const FIRST_URL = BASE_URL + ${str(request.path)};`,
    'const HEADERS: Record<string, string> = {',
    ...Object.entries(request.headers).map(([name, value]) => `  ${/^[A-Za-z_$][\w$]*$/.test(name) ? name : str(name)}: ${str(value)},`),
    '};',
    '',
    ...typescriptKeyLines(program),
    '',
    '/** One GET with a fresh token (spec 5.1 rules 3 and 4). */',
    'function get(url: string): Promise<Response> {',
    '  // Spec 5.1 rule 6: each token of a key is issued later than the one before, across async',
    '  // tasks. Requests wait in one queue until the answer before theirs has arrived, so that no',
    '  // later token reaches the server first.',
    '  const answer = queue.then(async () => {',
    ...typescriptSignLines(program),
    '    return fetch(url, {',
    '      headers: { ...HEADERS, Authorization: `Bearer ${token}` },',
    '    });',
    '  });',
    '  queue = answer.catch(() => undefined);',
    '  return answer;',
    '}',
    '',
    fetchFunction(program),
    '',
    `const workers = Number(process.env.${WORKERS_VARIABLE} ?? "1");`,
    'Promise.all(Array.from({ length: workers }, (_, n) => fetchAll(n + 1))).catch(',
    '  (err: Error) => {',
    '    console.error(err.message);',
    '    process.exit(1);',
    '  },',
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
      ? [`const items = ${bodyName}${/^[A-Za-z_$][\w$]*$/.test(request.itemsKey) ? `.${request.itemsKey}` : `[${str(request.itemsKey)}]`} ?? [];`, `console.log(\`${where}: \${items.length} ${itemsWord(request)}\`);`]
      : [`console.log(\`${where}: \${text}\`);`];
  const refused = ['if (!answer.ok) {', '  throw new Error(`worker ${worker}: ${answer.status} ${text}`);', '}'];
  if (!request.pages) {
    return ['async function fetchAll(worker: number): Promise<void> {', '  const answer = await get(FIRST_URL);', '  const text = await answer.text();', ...[...refused, ...received].map((l) => `  ${l}`), '}'].join('\n');
  }
  return [
    'async function fetchAll(worker: number): Promise<void> {',
    '  let url: string | undefined = FIRST_URL;',
    '  for (let page = 1; url; page++) {',
    '    const answer = await get(url); // a new token for every page',
    '    const text = await answer.text();',
    ...[...refused, 'const body = JSON.parse(text);', ...received.map((l) => l.replace(bodyName, 'body'))].map((l) => `    ${l}`),
    '    url = body.links?.next ?? undefined;',
    '    if (url && !url.startsWith(BASE_URL + "/")) {',
    '      throw new Error(`worker ${worker}: links.next leaves ${BASE_URL}: ${url}`);',
    '    }',
    '  }',
    '}',
  ].join('\n');
}
