import type { CodeProgram } from './codeRequest';
import { headerLines, itemsWord, KEY_FILE_VARIABLE, KEY_ID_VARIABLE, WORKERS_VARIABLE } from './codeRequest';

const str = (text: string) => JSON.stringify(text);
const specOf = (type: CodeProgram['credential']['type']) => (type === 'service-account' ? '5.6' : type === 'iam' ? '5.5' : '5.4');

/** A TypeScript program for Node 20+ (jose + fetch), in Prettier's default style. */
export function typescriptProgram(program: CodeProgram): string {
  const { request, credential } = program;
  const serviceAccount = credential.type === 'service-account';
  const header = [...headerLines(program), '', 'Needs Node 20+ and jose (npm install jose); run with `npx tsx <file>.ts`, or compile', 'with tsc as an ES module.'];
  return [
    ['/**', ...header.map((l) => (l ? ` * ${l}` : ' *')), ' */'].join('\n'),
    'import { createPrivateKey, randomUUID } from "node:crypto";',
    'import { readFileSync } from "node:fs";',
    'import { SignJWT } from "jose";',
    '',
    `const BASE_URL = ${str(program.baseUrl)};`,
    `const AUDIENCE = ${Array.isArray(program.audience) ? '[BASE_URL]' : 'BASE_URL'}; // spec 5.3: the environment's base URL`,
    `const LIFETIME = ${program.lifetimeSeconds}; // spec 5.1 rule 5: 60 to 3600 seconds`,
    `const FIRST_URL = BASE_URL + ${str(request.path)};`,
    'const HEADERS: Record<string, string> = {',
    ...Object.entries(request.headers).map(([name, value]) => `  ${/^[A-Za-z_$][\w$]*$/.test(name) ? name : str(name)}: ${str(value)},`),
    '};',
    '',
    'const keyFile = readFileSync(required(' + str(KEY_FILE_VARIABLE) + '), "utf8");',
    ...(serviceAccount
      ? [
          'const KEY = JSON.parse(keyFile);',
          'const PRIVATE_KEY = createPrivateKey(KEY.private_key);',
          'const KEY_ID: string = KEY.private_key_id; // spec 5.6: the key file\'s private_key_id',
          'const ISSUER: string = KEY.client_email;',
        ]
      : ['const PRIVATE_KEY = createPrivateKey(keyFile);', `const KEY_ID = required(${str(KEY_ID_VARIABLE)});`, `const ISSUER = ${str(credential.issuer ?? '')};`]),
    '',
    'let lastIat = 0;',
    'let queue: Promise<unknown> = Promise.resolve();',
    '',
    'function required(name: string): string {',
    '  const value = process.env[name];',
    '  if (!value) throw new Error(`Set ${name}.`);',
    '  return value;',
    '}',
    '',
    '/** One GET with a fresh token (spec 5.1 rules 3 and 4). */',
    'function get(url: string): Promise<Response> {',
    '  // Spec 5.1 rule 6: each token of a key is issued later than the one before, across async',
    '  // tasks. Requests wait in one queue until the answer before theirs has arrived, so that no',
    '  // later token reaches the server first.',
    '  const answer = queue.then(async () => {',
    '    let iat = Math.floor(Date.now() / 1000);',
    '    while (iat <= lastIat) {',
    '      // wait for the next second, never reuse one',
    '      const wait = (lastIat + 1) * 1000 - Date.now();',
    '      await new Promise((resolve) => setTimeout(resolve, wait));',
    '      iat = Math.floor(Date.now() / 1000);',
    '    }',
    '    lastIat = iat;',
    `    const token = await new SignJWT({`,
    '      iss: ISSUER,',
    ...(serviceAccount ? ['      sub: ISSUER, // spec 5.6: sub and email are the client_email', '      email: ISSUER,'] : []),
    '      aud: AUDIENCE,',
    '      iat,',
    '      exp: iat + LIFETIME,',
    '      jti: randomUUID(), // spec 5.1 rule 7: a new random UUID per token',
    '    })',
    `      .setProtectedHeader({ alg: "${credential.alg}", kid: KEY_ID }) // spec ${specOf(credential.type)}`,
    '      .sign(PRIVATE_KEY);',
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

function fetchFunction(program: CodeProgram): string {
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
