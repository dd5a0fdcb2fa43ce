// The signing part of every TypeScript program, REST or gRPC: the key read from MOBILITY_API_KEY_FILE,
// one queue and last-issued iat per key (spec 5.1 rule 6 across async tasks), and the token's claims.
import type { CodeProgram } from './codeRequest';
import { KEY_FILE_VARIABLE, KEY_ID_VARIABLE } from './codeRequest';

const str = (text: string) => JSON.stringify(text);
const specOf = (type: CodeProgram['credential']['type']) => (type === 'service-account' ? '5.6' : type === 'iam' ? '5.5' : '5.4');

/** `AUDIENCE` and `LIFETIME`, after `BASE_URL` is set. */
export function typescriptClaimConstants(program: CodeProgram): string[] {
  return [
    `const AUDIENCE = ${Array.isArray(program.audience) ? '[BASE_URL]' : 'BASE_URL'}; // spec 5.3: the environment's base URL`,
    `const LIFETIME = ${program.lifetimeSeconds}; // spec 5.1 rule 5: 60 to 3600 seconds`,
  ];
}

/** The key, key id and issuer, read from the environment (spec 5.7), the per-key clock's state and `required`. */
export function typescriptKeyLines(program: CodeProgram): string[] {
  const { credential } = program;
  return [
    'const keyFile = readFileSync(required(' + str(KEY_FILE_VARIABLE) + '), "utf8");',
    ...(credential.type === 'service-account'
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
  ];
}

/** Signs one token as `token`, inside the queue's `async () => { … }` (indented for it). */
export function typescriptSignLines(program: CodeProgram): string[] {
  const { credential } = program;
  return [
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
    ...(credential.type === 'service-account' ? ['      sub: ISSUER, // spec 5.6: sub and email are the client_email', '      email: ISSUER,'] : []),
    '      aud: AUDIENCE,',
    '      iat,',
    '      exp: iat + LIFETIME,',
    '      jti: randomUUID(), // spec 5.1 rule 7: a new random UUID per token',
    '    })',
    `      .setProtectedHeader({ alg: "${credential.alg}", kid: KEY_ID }) // spec ${specOf(credential.type)}`,
    '      .sign(PRIVATE_KEY);',
  ];
}
