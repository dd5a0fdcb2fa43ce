import type { RestCodeProgram } from './codeRequest';
import { headerLines, itemsWord } from './codeRequest';
import { pythonClaimConstants, pythonKeyLines, pythonMainLines, pythonSignLines } from './pythonToken';

const str = (text: string) => JSON.stringify(text);

/** A Python 3 program (PyJWT + requests), formatted as black formats it. */
export function pythonProgram(program: RestCodeProgram): string {
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
      ...pythonClaimConstants(program),
      `URL = BASE_URL + ${str(request.path)}`,
      'HEADERS = {',
      ...Object.entries(request.headers).map(([name, value]) => `    ${str(name)}: ${str(value)},`),
      '}',
      '',
      ...pythonKeyLines(program),
    ].join('\n'),
    '',
    '',
    [
      'def get(url):',
      '    """One GET with a fresh token (spec 5.1 rules 3 and 4)."""',
      ...pythonSignLines(program, 'request'),
      '        headers = {**HEADERS, "Authorization": f"Bearer {token}"}',
      '        return requests.get(url, headers=headers, timeout=30)',
    ].join('\n'),
    '',
    '',
    fetchFunction(program),
    '',
    '',
    pythonMainLines('fetch').join('\n'),
    '',
  ].join('\n');
}

function fetchFunction(program: RestCodeProgram): string {
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
