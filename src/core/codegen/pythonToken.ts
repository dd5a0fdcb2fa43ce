// The signing part of every Python program, REST or gRPC: the key read from MOBILITY_API_KEY_FILE,
// one lock and last-issued iat per key (spec 5.1 rule 6 across threads), and the token's claims.
import type { CodeProgram } from './codeRequest';
import { KEY_FILE_VARIABLE, KEY_ID_VARIABLE, WORKERS_VARIABLE } from './codeRequest';

const str = (text: string) => JSON.stringify(text);

/** `AUDIENCE` and `LIFETIME`, after `BASE_URL` is set. */
export function pythonClaimConstants(program: CodeProgram): string[] {
  return [
    `AUDIENCE = ${Array.isArray(program.audience) ? '[BASE_URL]' : 'BASE_URL'}  # spec 5.3: the environment's base URL`,
    `LIFETIME = ${program.lifetimeSeconds}  # spec 5.1 rule 5: 60 to 3600 seconds`,
  ];
}

/** The key, key id and issuer, read from the environment (spec 5.7), and the per-key clock's state. */
export function pythonKeyLines(program: CodeProgram): string[] {
  const { credential } = program;
  return [
    ...(credential.type === 'service-account'
      ? [
          `with open(os.environ[${str(KEY_FILE_VARIABLE)}]) as key_file:`,
          '    KEY = json.load(key_file)',
          'PRIVATE_KEY = KEY["private_key"]',
          'KEY_ID = KEY["private_key_id"]  # spec 5.6: kid is the key file\'s private_key_id',
          'ISSUER = KEY["client_email"]',
        ]
      : [
          `with open(os.environ[${str(KEY_FILE_VARIABLE)}], "rb") as key_file:`,
          '    PRIVATE_KEY = key_file.read()',
          `KEY_ID = os.environ[${str(KEY_ID_VARIABLE)}]`,
          `ISSUER = ${str(credential.issuer ?? '')}`,
        ]),
    '',
    '_lock = threading.Lock()',
    '_last_iat = 0',
  ];
}

/**
 * The body of a function that signs one token, indented for its place inside `with _lock:`; the
 * lines that follow (still under the lock) send with `token`. `what` names what is sent (request, call).
 */
export function pythonSignLines(program: CodeProgram, what: string): string[] {
  const { credential } = program;
  const serviceAccount = credential.type === 'service-account';
  return [
    '    global _last_iat',
    '    # Spec 5.1 rule 6: each token of a key is issued later than the one before, across threads.',
    `    # The lock is held until the answer ${what === 'request' ? 'arrives' : 'begins'}, so that no later token reaches the server first.`,
    '    with _lock:',
    '        iat = int(time.time())',
    '        while iat <= _last_iat:  # wait for the next second, never reuse one',
    '            time.sleep(max(0.0, _last_iat + 1 - time.time()))',
    '            iat = int(time.time())',
    '        _last_iat = iat',
    '        claims = {',
    '            "iss": ISSUER,',
    ...(serviceAccount ? ['            "sub": ISSUER,  # spec 5.6', '            "email": ISSUER,'] : []),
    '            "aud": AUDIENCE,',
    '            "iat": iat,',
    '            "exp": iat + LIFETIME,',
    '            "jti": str(uuid.uuid4()),  # spec 5.1 rule 7: a new random UUID per token',
    '        }',
    `        # spec ${serviceAccount ? '5.6' : credential.type === 'iam' ? '5.5' : '5.4'}: ${credential.alg} with the key id in the header`,
    `        token = jwt.encode(claims, PRIVATE_KEY, "${credential.alg}", {"kid": KEY_ID})`,
  ];
}

/** The main block: `MOBILITY_API_WORKERS` threads on one key, each running `function(worker)`. */
export function pythonMainLines(function_: string): string[] {
  return [
    'if __name__ == "__main__":',
    `    workers = int(os.environ.get(${str(WORKERS_VARIABLE)}, "1"))`,
    '    with ThreadPoolExecutor(workers) as pool:',
    `        for future in [pool.submit(${function_}, n + 1) for n in range(workers)]:`,
    '            future.result()',
  ];
}
