import type { RestCodeProgram } from './codeRequest';
import { headerLines, itemsWord, sharedClockLines } from './codeRequest';
import {
  PYTHON_KEY_IMPORTS,
  pythonClaimConstants,
  pythonKeyBlocks,
  pythonMainBlocks,
  pythonRunLines,
  pythonSignBlocks,
  pythonStdlibImports,
} from './pythonToken';

const str = (text: string) => JSON.stringify(text);

/** A Python 3 program (PyJWT + requests), formatted as black formats it. */
export function pythonProgram(program: RestCodeProgram): string {
  const { request } = program;
  const header = [
    ...headerLines(program),
    '',
    ...sharedClockLines(),
    '',
    'Needs PyJWT, requests and cryptography (pip install pyjwt requests cryptography;',
    'Debian: python3-jwt python3-requests python3-cryptography).',
    ...pythonRunLines(program),
  ];
  return [
    '"""' + [...header, '"""'].join('\n'),
    '',
    pythonStdlibImports(program).join('\n'),
    '',
    ['import jwt', 'import requests', ...PYTHON_KEY_IMPORTS.slice(1)].join('\n'),
    '',
    [
      `BASE_URL = ${str(program.baseUrl)}`,
      ...pythonClaimConstants(program),
      `URL = BASE_URL + ${str(request.path)}`,
      'HEADERS = {',
      ...Object.entries(request.headers).map(([name, value]) => `    ${str(name)}: ${str(value)},`),
      '}',
    ].join('\n'),
    '',
    '',
    [
      ...pythonKeyBlocks(program),
      ...pythonSignBlocks(program, 'request'),
      [
        'def get(url):',
        '    """One GET with a fresh token, the clock held until the answer has arrived."""',
        '    with next_iat() as iat:',
        '        headers = {**HEADERS, "Authorization": f"Bearer {sign(iat)}"}',
        '        return requests.get(url, headers=headers, timeout=30)',
      ].join('\n'),
      [
        'def reason(err):',
        '    """The innermost cause of a network error, on one line: [Errno 111] Connection refused."""',
        '    while err.__cause__ or err.__context__:',
        '        err = err.__cause__ or err.__context__',
        '    return str(err)',
      ].join('\n'),
      fetchFunction(program),
      ...pythonMainBlocks('fetch'),
    ].join('\n\n\n'),
    '',
  ].join('\n');
}

function fetchFunction(program: RestCodeProgram): string {
  const { request } = program;
  const where = request.pages ? 'worker {worker} page {page}' : 'worker {worker}';
  const received = request.csv
    ? ['print(answer.text)']
    : request.itemsKey
      ? [
          `items = answer.json().get(${str(request.itemsKey)}) or []`,
          `print(f"${where}: {len(items)} ${itemsWord(request)}")`,
        ]
      : [`print(f"${where}: {answer.text}")`];
  const send = (url: string) => [
    'try:',
    `    answer = get(${url})${request.pages ? '  # a new token for every page' : ''}`,
    'except requests.RequestException as err:',
    `    sys.exit(f"worker {worker}: no answer from {${url}}: {reason(err)}")`,
    'if not answer.ok:',
    '    sys.exit(f"worker {worker}: {answer.status_code} {answer.text}")',
  ];
  const indent = (lines: string[], by: string) => lines.map((l) => `${by}${l}`);
  if (!request.pages) {
    return ['def fetch(worker):', ...indent([...send('URL'), ...received], '    ')].join('\n');
  }
  return [
    'def fetch(worker):',
    '    url, page = URL, 1',
    '    while url:',
    ...indent([...send('url'), ...received], '        '),
    '        url = (answer.json().get("links") or {}).get("next")',
    '        if url and not url.startswith(BASE_URL + "/"):',
    '            sys.exit(f"worker {worker}: links.next leaves {BASE_URL}: {url}")',
    '        page += 1',
  ].join('\n');
}
