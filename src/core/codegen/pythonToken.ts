// The signing part of every Python program, REST or gRPC: the key read from MOBILITY_API_KEY_FILE with
// one-line errors, the per-key clock shared across processes (spec 5.1 rule 6: a file under the user's
// cache locked with fcntl.flock, the protocol of sharedClockLines), and the token's claims.
import type { CodeProgram } from './codeRequest';
import { CLOCK_DIR_VARIABLE, KEY_FILE_VARIABLE, KEY_ID_VARIABLE, WORKERS_VARIABLE } from './codeRequest';

const str = (text: string) => JSON.stringify(text);

/** The standard library modules the signing part needs, with `extra` ones of the program, sorted as isort sorts them. */
export function pythonStdlibImports(program: CodeProgram): string[] {
  const modules = ['contextlib', 'fcntl', 'hashlib', ...(program.credential.type === 'service-account' ? ['json'] : []), 'os', 'sys', 'threading', 'time', 'uuid'];
  return [...modules.map((m) => `import ${m}`), 'from concurrent.futures import ThreadPoolExecutor'];
}

/** The third-party imports of the signing part (after `import grpc` where there is one). */
export const PYTHON_KEY_IMPORTS = [
  'import jwt',
  'from cryptography.hazmat.primitives.asymmetric import ec, rsa',
  'from cryptography.hazmat.primitives.serialization import load_pem_private_key',
];

/** `AUDIENCE` and `LIFETIME`, after `BASE_URL` is set; then `ISSUER` where the program knows it. */
export function pythonClaimConstants(program: CodeProgram): string[] {
  return [
    `AUDIENCE = ${Array.isArray(program.audience) ? '[BASE_URL]' : 'BASE_URL'}  # spec 5.3: the environment's base URL`,
    `LIFETIME = ${program.lifetimeSeconds}  # spec 5.1 rule 5: 60 to 3600 seconds`,
    ...(program.credential.type === 'service-account' ? [] : [`ISSUER = ${str(program.credential.issuer ?? '')}`]),
  ];
}

/**
 * The top-level functions that read the key (spec 5.7) and find the clock file, then the lines that call
 * them: `PRIVATE_KEY`, `KEY_ID` (and a service account's `ISSUER`), `CLOCK_FILE`. Each blank-line separated
 * block is one element, for the caller to join with two blank lines as black does.
 */
export function pythonKeyBlocks(program: CodeProgram): string[] {
  const serviceAccount = program.credential.type === 'service-account';
  const keyFile = `MOBILITY_API_KEY_FILE ({path})`;
  const readKey = [
    'def read_key():',
    `    """The private key${serviceAccount ? ', key id and issuer' : ' and key id'}, from the environment (spec 5.7)."""`,
    `    path = os.environ.get(${str(KEY_FILE_VARIABLE)})`,
    '    if not path:',
    `        sys.exit("Set ${KEY_FILE_VARIABLE} to the ${serviceAccount ? 'service-account key file (JSON)' : 'private key PEM file'}.")`,
    '    try:',
    '        with open(path, "rb") as key_file:',
    '            text = key_file.read()',
    '    except OSError as err:',
    `        sys.exit(f"Cannot read ${KEY_FILE_VARIABLE} ({path}): {err.strerror}.")`,
    ...(serviceAccount
      ? [
          '    try:',
          '        key = json.loads(text)',
          '        # spec 5.6: kid is the key file\'s private_key_id, iss its client_email',
          '        pem = key["private_key"].encode()',
          '        key_id, issuer = key["private_key_id"], key["client_email"]',
          '    except (ValueError, KeyError, TypeError, AttributeError):',
          '        sys.exit(',
          `            f"${keyFile} is not a service-account key file: JSON with"`,
          '            " private_key, private_key_id and client_email."',
          '        )',
        ]
      : [
          `    key_id = os.environ.get(${str(KEY_ID_VARIABLE)})`,
          '    if not key_id:',
          `        sys.exit("Set ${KEY_ID_VARIABLE} to the key id of that key.")`,
        ]),
    '    try:',
    `        key = load_pem_private_key(${serviceAccount ? 'pem' : 'text'}, password=None)`,
    '    except (ValueError, TypeError):',
    `        sys.exit(f"${keyFile} holds no unencrypted PEM key.")`,
    ...(serviceAccount
      ? ['    if not isinstance(key, rsa.RSAPrivateKey):', `        sys.exit(f"${keyFile}: private_key is no RSA key (RS256).")`, '    return key, key_id, issuer']
      : [
          '    if not isinstance(key, ec.EllipticCurvePrivateKey) or key.curve.name != "secp256r1":',
          `        sys.exit(f"${keyFile} is no P-256 EC key (ES256).")`,
          '    return key, key_id',
        ]),
  ];
  const clockFile = [
    'def clock_file(key_id):',
    '    """The file holding the last iat issued on this key (spec 5.1 rule 6 across processes)."""',
    `    folder = os.environ.get(${str(CLOCK_DIR_VARIABLE)}) or os.path.join(`,
    '        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),',
    '        "mobility-api",',
    '    )',
    '    # Named by a hash: the key id is a secret (spec 5.7).',
    '    digest = hashlib.sha256(key_id.encode()).hexdigest()',
    '    path = os.path.join(folder, "iat-" + digest[:16])',
    '    try:',
    '        os.makedirs(folder, mode=0o700, exist_ok=True)',
    '        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))',
    '    except OSError as err:',
    '        sys.exit(',
    '            f"Cannot write the clock file {path}: {err.strerror}."',
    `            " Set ${CLOCK_DIR_VARIABLE} to a folder you can write."`,
    '        )',
    '    return path',
  ];
  return [
    readKey.join('\n'),
    clockFile.join('\n'),
    [
      serviceAccount ? 'PRIVATE_KEY, KEY_ID, ISSUER = read_key()' : 'PRIVATE_KEY, KEY_ID = read_key()',
      'CLOCK_FILE = clock_file(KEY_ID)',
      '_lock = threading.Lock()  # this process\'s threads (flock: the other processes)',
    ].join('\n'),
  ];
}

/**
 * `next_iat()`, which holds the clock until the `with` block that uses it ends, and `sign(iat)`: two
 * top-level functions, each one element. `what` names what is sent (request, call).
 */
export function pythonSignBlocks(program: CodeProgram, what: string): string[] {
  const { credential } = program;
  const serviceAccount = credential.type === 'service-account';
  const nextIat = [
    '@contextlib.contextmanager',
    'def next_iat():',
    '    """An iat later than that of every token issued on this key before (spec 5.1 rule 6).',
    '',
    '    Across threads and processes: every run of this program, and of the Python, Go and shell',
    '    programs Copy as Code writes, keeps the last iat of a key in one file, locked with flock.',
    `    The lock is held until the with block ends, once the answer ${what === 'request' ? 'has arrived' : 'has begun'}, so that`,
    '    no later token reaches the server first.',
    '    """',
    '    with _lock, open(os.open(CLOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600), "r+") as clock:',
    '        fcntl.flock(clock, fcntl.LOCK_EX)  # released when the file closes',
    '        text = clock.read().strip()',
    '        last = int(text) if text.isdigit() else 0',
    '        iat = int(time.time())',
    '        while iat <= last:  # wait for the next second, never reuse one',
    '            time.sleep(max(0.0, last + 1 - time.time()))',
    '            iat = int(time.time())',
    '        clock.seek(0)',
    '        clock.truncate()',
    '        clock.write(f"{iat}\\n")',
    '        clock.flush()',
    '        yield iat',
  ];
  const sign = [
    'def sign(iat):',
    '    """A fresh token issued at iat (spec 5.1 rules 3 and 4)."""',
    '    claims = {',
    '        "iss": ISSUER,',
    ...(serviceAccount ? ['        "sub": ISSUER,  # spec 5.6', '        "email": ISSUER,'] : []),
    '        "aud": AUDIENCE,',
    '        "iat": iat,',
    '        "exp": iat + LIFETIME,',
    '        "jti": str(uuid.uuid4()),  # spec 5.1 rule 7: a new random UUID per token',
    '    }',
    `    # spec ${serviceAccount ? '5.6' : credential.type === 'iam' ? '5.5' : '5.4'}: ${credential.alg} with the key id in the header`,
    `    return jwt.encode(claims, PRIVATE_KEY, "${credential.alg}", {"kid": KEY_ID})`,
  ];
  return [nextIat.join('\n'), sign.join('\n')];
}

/** `worker_count()` and the main block: `MOBILITY_API_WORKERS` threads on one key, each running `function(worker)`. */
export function pythonMainBlocks(function_: string): string[] {
  return [
    [
      'def worker_count():',
      `    text = os.environ.get(${str(WORKERS_VARIABLE)}, "1")`,
      '    if not text.isdigit() or int(text) < 1:',
      `        sys.exit(f"Set ${WORKERS_VARIABLE} to a whole number from 1, not {text!r}.")`,
      '    return int(text)',
    ].join('\n'),
    [
      'if __name__ == "__main__":',
      '    workers = worker_count()',
      '    with ThreadPoolExecutor(workers) as pool:',
      `        for future in [pool.submit(${function_}, n + 1) for n in range(workers)]:`,
      '            future.result()',
    ].join('\n'),
  ];
}

/** How to run the program, by hand or from cron: the exact command, then the clock it shares. */
export function pythonRunLines(program: CodeProgram): string[] {
  const serviceAccount = program.credential.type === 'service-account';
  return [
    'Run it (from cron too: cron sets none of these variables, so set them on its line):',
    '',
    serviceAccount
      ? `    ${KEY_FILE_VARIABLE}=/path/to/service-account.json \\\n        /usr/bin/python3 /path/to/mobility_api_request.py`
      : `    ${KEY_FILE_VARIABLE}=/path/to/key.pem ${KEY_ID_VARIABLE}="$(cat /path/to/key-id)" \\\n        /usr/bin/python3 /path/to/mobility_api_request.py`,
  ];
}
