import assert from 'node:assert/strict';
import { MobilityError } from '../../src/core/base/errors';
import { parseRequestFile } from '../../src/core/http/requestFile';
import { resolveFileRequest } from '../../src/core/http/requestFileResolve';
import { findFileRequest } from '../../src/core/http/requestFileLookup';

const FILE = [
  '@hour = 2025-11-05T13',
  '@trips = {{baseUrl}}/trips',
  '',
  '# @name vehicles',
  'GET {{baseUrl}}/vehicles HTTP/1.1',
  'Accept: application/vnd.mds+json;version=2.0',
  '',
  '###  trips of one hour',
  '// @name trips',
  'GET {{trips}}',
  '    ?end_time={{hour}}',
  '    &page_size=10',
  '',
  '### the short form: a URL alone is a GET',
  '{{baseUrl}}/stops',
  '',
  '###',
  'GET {{baseUrl}}/vehicles',
  'Authorization: Bearer eyJhbGciOiJFUzI1NiJ9.e30.c2ln',
  '',
].join('\r\n');

describe('request files (.http / .rest, REST Client syntax)', () => {
  it('splits requests at ###, reads names, variables, continuation lines and headers', () => {
    const file = parseRequestFile(FILE);
    assert.deepEqual(file.problems, []);
    assert.equal(file.requests.length, 4);
    assert.deepEqual(
      file.requests.map((r) => [r.index, r.name, r.method, r.line]),
      [
        [1, 'vehicles', 'GET', 4],
        [2, 'trips', 'GET', 9],
        [3, undefined, 'GET', 14],
        [4, undefined, 'GET', 17],
      ],
    );
    assert.equal(file.requests[1].url, '{{trips}}?end_time={{hour}}&page_size=10');
    assert.deepEqual(file.requests[0].headers, [{ name: 'Accept', value: 'application/vnd.mds+json;version=2.0' }]);
    assert.equal(file.variables.get('hour')?.value, '2025-11-05T13');
  });

  it("substitutes the active environment's baseUrl and file variables that refer to each other", () => {
    const file = parseRequestFile(FILE);
    const trips = resolveFileRequest(findFileRequest(file, 'trips'), file, { baseUrl: 'http://127.0.0.1:1234/mds' });
    assert.equal(trips.url, 'http://127.0.0.1:1234/mds/trips?end_time=2025-11-05T13&page_size=10');
    assert.equal(trips.authorization, undefined);
    // The same file against another environment.
    assert.equal(
      resolveFileRequest(findFileRequest(file, '3'), file, { baseUrl: 'https://staging.example.test' }).url,
      'https://staging.example.test/stops',
    );
  });

  it("refuses a request's own Authorization, saying that a fresh token is signed for every request and how to send it on purpose", () => {
    const file = parseRequestFile(FILE);
    assert.throws(
      () => resolveFileRequest(findFileRequest(file, '4'), file, { baseUrl: 'https://x.test' }),
      (err: unknown) =>
        err instanceof MobilityError &&
        err.code === 'AUTHORIZATION_GIVEN' &&
        /Request 4 \(line 18\) sets its own Authorization header/.test(err.message) &&
        /signs a fresh token for every request \(spec 5\.1 rule 4\)/.test(err.message) &&
        /"# @authorization as-is"/.test(err.message),
    );
  });

  it('sends a request\'s own Authorization as written only under "# @authorization as-is", and flags the line where it has no effect', () => {
    const file = parseRequestFile(
      [
        '@token = eyJ.e30.c2ln',
        '# @name fixed',
        '# @authorization as-is',
        'GET {{baseUrl}}/vehicles',
        'authorization: Bearer {{token}}',
        '',
        '###',
        '// @authorization as-is',
        'GET {{baseUrl}}/stops',
        '###',
        '# @authorization always',
        'GET {{baseUrl}}/trips',
      ].join('\n'),
    );
    const fixed = resolveFileRequest(findFileRequest(file, 'fixed'), file, { baseUrl: 'https://x.test' });
    assert.equal(fixed.authorization, 'Bearer eyJ.e30.c2ln');
    assert.deepEqual(fixed.headers, {}, 'the Authorization is not among the headers the client merges');
    assert.equal(
      resolveFileRequest(findFileRequest(file, '2'), file, { baseUrl: 'https://x.test' }).authorization,
      undefined,
    );
    assert.deepEqual(
      file.problems.map((p) => [p.line, /@authorization/.test(p.message)]),
      [
        [7, true],
        [10, true],
      ],
    );
    assert.match(file.problems[0].message, /sets no Authorization header: a fresh token is signed/);
    assert.match(file.problems[1].message, /write "# @authorization as-is"/);
  });

  it('refuses an unresolved variable, naming it and the line, and an unknown request, listing those there are', () => {
    const file = parseRequestFile(FILE);
    assert.throws(
      () => resolveFileRequest(findFileRequest(file, 'vehicles'), file),
      (err: unknown) =>
        err instanceof MobilityError && /\{\{baseUrl\}\}.*not defined/.test(err.message) && /line 5/.test(err.message),
    );
    assert.throws(() => findFileRequest(file, 'nope'), /no request "nope".*1 \(vehicles\), 2 \(trips\), 3, 4/);
  });

  it('reports lines that are neither headers nor requests, and keeps a body', () => {
    const file = parseRequestFile('GET https://x.test/a\nnot a header\nX-Ok: 1\n\n{"a":1}\n###\nGET\n');
    assert.equal(file.requests.length, 1);
    assert.equal(file.requests[0].body, '{"a":1}');
    assert.deepEqual(
      file.problems.map((p) => p.line),
      [1, 6],
    );
  });

  it('stays linear on hostile lines (long runs of spaces, unclosed braces)', () => {
    const spaces = ' '.repeat(200_000);
    const file = parseRequestFile(`GET https://x.test/${spaces}x${spaces}\nX-A: {{${spaces}\n`);
    assert.equal(file.requests.length, 1);
    assert.equal(
      resolveFileRequest(file.requests[0], file, { baseUrl: 'b' }).headers['X-A'],
      `{{${spaces}`.trim(),
      'an unclosed {{ is text, not a variable',
    );
    const text = `{{${' '.repeat(100_000)}`.repeat(5);
    assert.equal(parseRequestFile(`GET https://x.test/${text}`).requests.length, 1);
  });

  it('says once that a binary or non-UTF-8 file is not a text request file, instead of a warning per line', () => {
    const binary = parseRequestFile(`GET https://x.test/a\n${'\u0000\u0001garbage line\n'.repeat(500)}`);
    assert.equal(binary.requests.length, 0);
    assert.equal(binary.problems.length, 1);
    assert.match(binary.notText ?? '', /^Not a text request file: it holds NUL bytes/);
    const latin1 = parseRequestFile(
      Buffer.from('GET https://x.test/caf\xe9\nnot a header\n'.repeat(300), 'latin1').toString('utf8'),
    );
    assert.equal(latin1.requests.length, 0);
    assert.deepEqual(
      latin1.problems.map((p) => p.line),
      [0],
    );
    assert.match(latin1.notText ?? '', /^Not a text request file: it is not valid UTF-8 \(line 1\)/);
    assert.equal(parseRequestFile('GET https://x.test/a\n').notText, undefined);
  });

  it('names the first few requests and counts the rest when the one asked for is not there', () => {
    const file = parseRequestFile(
      Array.from({ length: 10_000 }, (_, i) => `# @name r${i + 1}\nGET https://x.test/${i}\n`).join('###\n'),
    );
    assert.equal(file.requests.length, 10_000);
    assert.throws(
      () => findFileRequest(file, 'nope'),
      (err: unknown) =>
        err instanceof MobilityError &&
        /no request "nope"\. Its requests: 1 \(r1\), 2 \(r2\), .*10 \(r10\) and 9,990 more\.$/.test(err.message) &&
        err.message.length < 300,
    );
    assert.throws(
      () => findFileRequest(parseRequestFile('GET https://x.test/a\n###\n# @name b\nGET https://x.test/b\n'), 'c'),
      /Its requests: 1, 2 \(b\)\.$/,
    );
  });

  it('names a variable that refers to itself, directly or through others, and the cycle', () => {
    const file = parseRequestFile(
      [
        '@self = x{{self}}',
        '@a = {{b}}/1',
        '@b = {{c}}/2',
        '@c = {{a}}/3',
        '@ok = {{c2}}',
        '@c2 = fine',
        '# @name direct',
        'GET https://x.test/{{self}}',
        '###',
        '# @name through',
        'GET https://x.test/{{ok}}',
        'X-Trace: {{b}}',
        '###',
        '# @name plain',
        'GET https://x.test/{{ok}}',
      ].join('\n'),
    );
    const refused = (name: string, message: RegExp) =>
      assert.throws(
        () => resolveFileRequest(findFileRequest(file, name), file),
        (err: unknown) => err instanceof MobilityError && message.test(err.message) && !/not defined/.test(err.message),
      );
    refused('direct', /^Request direct \(line 8\): @self refers to itself \(line 1\): its value uses \{\{self\}\}\./);
    refused('through', /^Request through \(line 11\): @b refers to itself through @c → @a → @b \(lines 3, 4, 2\)/);
    assert.equal(resolveFileRequest(findFileRequest(file, 'plain'), file).url, 'https://x.test/fine');
    const deep = parseRequestFile(
      [
        ...Array.from({ length: 30 }, (_, i) => `@v${i} = {{v${i + 1}}}`),
        '@v30 = end',
        'GET https://x.test/{{v0}}',
      ].join('\n'),
    );
    assert.equal(
      resolveFileRequest(deep.requests[0], deep).url,
      'https://x.test/end',
      'a long chain without a cycle resolves',
    );
  });

  it('expands a variable used many times once per request, and refuses one that grows past a million characters', () => {
    // 24 levels of `@vN = {{vN+1}}{{vN+1}}`: 16 million substitutions when each use is expanded again, 48 when each is expanded once.
    const doubling = parseRequestFile(
      [
        ...Array.from({ length: 24 }, (_, i) => `@v${i} = {{v${i + 1}}}-{{v${i + 1}}}`),
        '@v24 = x',
        '@short = {{v10}}',
        '# @name short',
        'GET https://x.test/?q={{short}}',
        '###',
        '# @name long',
        'GET https://x.test/?q={{v0}}',
      ].join('\n'),
    );
    const short = resolveFileRequest(findFileRequest(doubling, 'short'), doubling).url;
    assert.equal(short.length, 'https://x.test/?q='.length + 2 ** 15 - 1, "@v10 is 1,024 x's joined by dashes");
    assert.throws(
      () => resolveFileRequest(findFileRequest(doubling, 'long'), doubling),
      (err: unknown) =>
        err instanceof MobilityError &&
        /^Request long \(line 31\): @v5 \(line 6\) grows to 1,?048,?575 characters once the variables it uses are substituted \(at most 1,?000,?000\)/.test(
          err.message,
        ),
    );
  });

  it('says "is" for one undefined variable and "are" for several', () => {
    const file = parseRequestFile(
      '# @name one\nGET https://x.test/{{a}}\n###\n# @name two\nGET https://x.test/{{a}}/{{b}}\n',
    );
    assert.throws(() => resolveFileRequest(findFileRequest(file, 'one'), file), /uses \{\{a\}\}, which is not defined/);
    assert.throws(
      () => resolveFileRequest(findFileRequest(file, 'two'), file),
      /uses \{\{a\}\}, \{\{b\}\}, which are not defined/,
    );
  });

  it('names a variable whose value holds a bare carriage return, and its line', () => {
    const file = parseRequestFile(
      '@hour = 2025-11-05T13\r\n@id = abc\rdef\r\n\r\nGET https://x.test/trips?end_time={{hour}}&id={{id}}\r\n',
    );
    assert.deepEqual(file.problems, []);
    assert.equal(file.requests.length, 1);
    assert.throws(
      () => resolveFileRequest(file.requests[0], file),
      (err: unknown) =>
        err instanceof MobilityError &&
        /^Request 1 \(line 4\): the value of @id \(line 2\) holds a carriage return \(CR\)/.test(err.message),
    );
  });
});
