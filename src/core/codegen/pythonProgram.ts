import type { CodeProgram } from './codeRequest';
import { headerLines, itemsWord, KEY_FILE_VARIABLE, KEY_ID_VARIABLE, WORKERS_VARIABLE } from './codeRequest';

const str = (text: string) => JSON.stringify(text);

/** A Python 3 program (PyJWT + requests), formatted as black formats it. */
export function pythonProgram(program: CodeProgram): string {
  const { request, credential } = program;
  const serviceAccount = credential.type === 'service-account';
  return [
    '"""' + [...headerLines(program), '', 'Needs PyJWT, requests and cryptography (pip install pyjwt requests cryptography;', 'Debian: python3-jwt python3-requests python3-cryptography).', '"""'].join('\n'),
    '',
    [...(serviceAccount ? ['import json'] : []), 'import os', 'import sys', 'import threading', 'import time', 'import uuid', 'from concurrent.futures import ThreadPoolExecutor'].join('\n'),
    '',
    'import jwt\nimport requests',
    '',
    [
      `BASE_URL = ${str(program.baseUrl)}`,
      `AUDIENCE = ${Array.isArray(program.audience) ? '[BASE_URL]' : 'BASE_URL'}  # spec 5.3: the environment's base URL`,
      `LIFETIME = ${program.lifetimeSeconds}  # spec 5.1 rule 5: 60 to 3600 seconds`,
      `URL = BASE_URL + ${str(request.path)}`,
      'HEADERS = {',
      ...Object.entries(request.headers).map(([name, value]) => `    ${str(name)}: ${str(value)},`),
      '}',
      '',
      ...(serviceAccount
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
    ].join('\n'),
    '',
    '',
    [
      'def get(url):',
      '    """One GET with a fresh token (spec 5.1 rules 3 and 4)."""',
      '    global _last_iat',
      '    # Spec 5.1 rule 6: each token of a key is issued later than the one before, across threads.',
      '    # The lock is held until the answer arrives, so that no later token reaches the server first.',
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
      '        headers = {**HEADERS, "Authorization": f"Bearer {token}"}',
      '        return requests.get(url, headers=headers, timeout=30)',
    ].join('\n'),
    '',
    '',
    fetchFunction(program),
    '',
    '',
    [
      'if __name__ == "__main__":',
      `    workers = int(os.environ.get(${str(WORKERS_VARIABLE)}, "1"))`,
      '    with ThreadPoolExecutor(workers) as pool:',
      '        for future in [pool.submit(fetch, n + 1) for n in range(workers)]:',
      '            future.result()',
    ].join('\n'),
    '',
  ].join('\n');
}

function fetchFunction(program: CodeProgram): string {
  const { request } = program;
  const where = request.pages ? 'worker {worker} page {page}' : 'worker {worker}';
  const received = request.csv
    ? ['    print(answer.text)']
    : request.itemsKey
      ? [`    items = answer.json().get(${str(request.itemsKey)}) or []`, `    print(f"${where}: {len(items)} ${itemsWord(request)}")`]
      : [`    print(f"${where}: {answer.text}")`];
  const refused = [
    '    if not answer.ok:',
    '        sys.exit(f"worker {worker}: {answer.status_code} {answer.text}")',
  ];
  if (!request.pages) {
    return ['def fetch(worker):', '    answer = get(URL)', ...refused, ...received].join('\n');
  }
  const indent = (lines: string[]) => lines.map((l) => `    ${l}`);
  return [
    'def fetch(worker):',
    '    url, page = URL, 1',
    '    while url:',
    '        answer = get(url)  # a new token for every page',
    ...indent(refused),
    ...indent(received),
    '        url = (answer.json().get("links") or {}).get("next")',
    '        if url and not url.startswith(BASE_URL + "/"):',
    '            sys.exit(f"worker {worker}: links.next leaves {BASE_URL}: {url}")',
    '        page += 1',
  ].join('\n');
}
