// The signing part of every Python program, REST or gRPC: the key read from MOBILITY_API_KEY_FILE with
// one-line errors, the per-key clock shared with every signer (spec 5.1 rule 6: the protocol of
// sharedClockLines and docs/copy-as-code.md, a mkdir lock), and the token's claims.
import type { CodeProgram } from './codeRequest';
import {
  CLOCK_LOCK_REFRESH_SECONDS,
  CLOCK_LOCK_STALE_SECONDS,
  CLOCK_LOCK_WAIT_SECONDS,
  KEY_FILE_VARIABLE,
  KEY_ID_VARIABLE,
  STATE_DIR_VARIABLE,
  WORKERS_VARIABLE,
} from './codeRequest';

const str = (text: string) => JSON.stringify(text);

/** The standard library modules the signing part needs, with `extra` ones of the program, sorted as isort sorts them. */
export function pythonStdlibImports(program: CodeProgram): string[] {
  const modules = [
    'contextlib',
    'hashlib',
    ...(program.credential.type === 'service-account' ? ['json'] : []),
    'os',
    're',
    'sys',
    'threading',
    'time',
    'uuid',
  ];
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
    '# The state folder: the first of these set, with the folder under it (the same in every signer).',
    'STATE_DIR_RULE = [',
    `    ("${STATE_DIR_VARIABLE}", ""),`,
    '    ("XDG_STATE_HOME", "mobility-api"),',
    '    ("LOCALAPPDATA", "mobility-api"),',
    '    ("HOME", os.path.join(".local", "state", "mobility-api")),',
    ']',
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
          "        # spec 5.6: kid is the key file's private_key_id, iss its client_email",
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
      ? [
          '    if not isinstance(key, rsa.RSAPrivateKey):',
          `        sys.exit(f"${keyFile}: private_key is no RSA key (RS256).")`,
          '    return key, key_id, issuer',
        ]
      : [
          '    if not isinstance(key, ec.EllipticCurvePrivateKey) or key.curve.name != "secp256r1":',
          `        sys.exit(f"${keyFile} is no P-256 EC key (ES256).")`,
          '    return key, key_id',
        ]),
  ];
  const clockFile = [
    'def clock_file(key_id):',
    '    """The file holding the last iat issued on this key, by every signer (spec 5.1 rule 6)."""',
    '    for name, under in STATE_DIR_RULE:',
    '        value = os.environ.get(name)',
    '        if value:',
    '            break',
    '    else:',
    `        sys.exit("Set ${STATE_DIR_VARIABLE} to a folder for the clock file: no HOME.")`,
    '    if not os.path.isabs(value):',
    `        sys.exit(f"{name} is {value!r}, no absolute path: set ${STATE_DIR_VARIABLE}")`,
    '    folder = os.path.join(value, under, "clock")',
    '    try:',
    '        os.makedirs(folder, mode=0o700, exist_ok=True)',
    '    except OSError as err:',
    '        sys.exit(',
    '            f"Cannot make the clock folder {folder}: {err.strerror}."',
    `            " Set ${STATE_DIR_VARIABLE} to a folder you can write."`,
    '        )',
    '    # Named by a hash: the key id is a secret (spec 5.7).',
    '    digest = hashlib.sha256(key_id.encode()).hexdigest()',
    '    return os.path.join(folder, "iat-" + digest[:32])',
  ];
  const lock = [
    'def is_stale(folder):',
    `    """Whether a lock folder was refreshed more than ${CLOCK_LOCK_STALE_SECONDS} s ago (its holder died)."""`,
    '    try:',
    `        return os.stat(folder).st_mtime < time.time() - ${CLOCK_LOCK_STALE_SECONDS}`,
    '    except FileNotFoundError:',
    '        return False',
    '',
    '',
    'def take_over(lock):',
    '    """Removes a stale lock, one waiter at a time (under the .takeover.lock folder)."""',
    '    guard = CLOCK_FILE + ".takeover.lock"',
    '    try:',
    '        os.mkdir(guard, 0o700)',
    '    except FileExistsError:',
    '        if is_stale(guard):',
    '            with contextlib.suppress(OSError):',
    '                os.rmdir(guard)',
    '        return',
    '    try:',
    '        if is_stale(lock):',
    '            with contextlib.suppress(FileNotFoundError):',
    '                os.rmdir(lock)',
    '    finally:',
    '        os.rmdir(guard)',
    '',
    '',
    'def refresh(lock, stop):',
    '    """Keeps a held lock fresh, so that no other signer takes it over."""',
    `    while not stop.wait(${CLOCK_LOCK_REFRESH_SECONDS}):`,
    '        with contextlib.suppress(OSError):',
    '            os.utime(lock)',
    '',
    '',
    '@contextlib.contextmanager',
    'def key_lock():',
    '    """The lock every signer of this key takes: the folder CLOCK_FILE.lock, made by mkdir."""',
    '    lock = CLOCK_FILE + ".lock"',
    `    deadline = time.time() + ${CLOCK_LOCK_WAIT_SECONDS}`,
    '    while True:',
    '        try:',
    '            os.mkdir(lock, 0o700)',
    '            break',
    '        except FileExistsError:',
    '            pass',
    '        except OSError as err:',
    '            sys.exit(f"Cannot lock {CLOCK_FILE}: {err.strerror}.")',
    '        if is_stale(lock):',
    '            take_over(lock)',
    '        elif time.time() > deadline:',
    `            sys.exit(f"{lock} was held for ${CLOCK_LOCK_WAIT_SECONDS} s; if no signer runs, remove it.")`,
    '        time.sleep(0.01)',
    '    stop = threading.Event()',
    '    refresher = threading.Thread(target=refresh, args=(lock, stop), daemon=True)',
    '    refresher.start()',
    '    try:',
    '        yield',
    '    finally:',
    '        stop.set()',
    '        refresher.join()  # never touches the folder once another signer may own it',
    '        os.rmdir(lock)',
  ];
  return [
    readKey.join('\n'),
    clockFile.join('\n'),
    [
      serviceAccount ? 'PRIVATE_KEY, KEY_ID, ISSUER = read_key()' : 'PRIVATE_KEY, KEY_ID = read_key()',
      'CLOCK_FILE = clock_file(KEY_ID)',
      "_lock = threading.Lock()  # this process's threads (key_lock: the other signers)",
    ].join('\n'),
    lock.join('\n'),
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
    '    Across threads and every signer of the key (the protocol in the header): the key lock',
    `    is held until the with block ends, once the answer ${what === 'request' ? 'has arrived' : 'has begun'}, so that no later`,
    '    token reaches the server first.',
    '    """',
    '    with _lock, key_lock():',
    '        try:',
    '            with open(CLOCK_FILE) as clock:',
    '                text = clock.read().strip()',
    '        except FileNotFoundError:',
    '            text = "0"',
    '        # Damaged from outside: counts as now (no signer writes a time ahead of its clock).',
    '        last = float(text) if re.fullmatch(r"[0-9]+(\\.[0-9]+)?", text) else time.time()',
    '        iat = int(time.time())',
    '        while iat <= last:  # wait for the next second, never reuse one',
    '            time.sleep(max(0.0, int(last) + 1 - time.time()))',
    '            iat = int(time.time())',
    '        temporary = f"{CLOCK_FILE}.{os.getpid()}.tmp"',
    '        with open(temporary, "w") as clock:',
    '            clock.write(f"{iat}\\n")',
    '        os.replace(temporary, CLOCK_FILE)  # a reader sees the old time or the new one',
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
