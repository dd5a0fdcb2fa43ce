import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { HttpExchange } from '../../src/core/http';
import { parseRequestFile } from '../../src/core/http';
import type { Assertion, AssertionProblem } from '../../src/core/contract';
import { evaluateAssertion, fileAssertions, parseAssertion, predicateIds } from '../../src/core/contract';

/** Reads one `??` line standing at column `column` of line 7. */
function read(text: string, column = 0): { assertion: Assertion } | { problem: AssertionProblem } {
  return parseAssertion({ text, line: 7, column });
}

function assertion(text: string): Assertion {
  const r = read(text);
  assert.ok('assertion' in r, `"${text}" reads: ${'problem' in r ? r.problem.message : ''}`);
  return r.assertion;
}

function problem(text: string, column = 0): AssertionProblem {
  const r = read(text, column);
  assert.ok('problem' in r, `"${text}" is refused`);
  return r.problem;
}

/** An answer as the REST client returns it. */
function page(over: Partial<HttpExchange> = {}): HttpExchange {
  const body = over.body ?? {
    vehicles: [{ device_id: 'a', battery: 0.5, tags: ['x', 'y'], active: true, deleted: null }, { device_id: 'b' }],
    links: { next: null },
    version: '2.0',
  };
  return {
    url: 'http://127.0.0.1/mds/vehicles',
    method: 'GET',
    requestHeaders: {},
    status: 200,
    statusText: 'OK',
    ok: true,
    responseHeaders: { 'content-type': 'application/vnd.mds+json;version=2.0', 'content-length': '42' },
    contentType: 'application/vnd.mds+json;version=2.0',
    body,
    bodyKind: 'json',
    text: JSON.stringify(body),
    bytes: 42,
    timings: { queuedMs: 1, signMs: 2, ttfbMs: 30, totalMs: 45 },
    ...over,
  };
}

function check(text: string, answer = page()): ReturnType<typeof evaluateAssertion> {
  return evaluateAssertion(assertion(text), answer);
}

function passes(text: string, answer = page()): void {
  const outcome = check(text, answer);
  assert.ok(outcome.passed, `${text} passes: ${outcome.message}`);
}

function fails(text: string, answer = page()): NonNullable<ReturnType<typeof evaluateAssertion>> {
  const outcome = check(text, answer);
  assert.equal(outcome.passed, false, `${text} fails`);
  assert.ok(outcome.message?.startsWith(text), `the message names the assertion: ${outcome.message}`);
  return outcome;
}

describe('contract: assertion lines in request files', () => {
  it('a request keeps its ?? lines, wherever they stand in its block, with line and column; body and headers keep none', () => {
    const file = parseRequestFile(
      [
        '# @name vehicles',
        '?? status == 200',
        'GET {{baseUrl}}/vehicles',
        'Accept: application/json',
        '  ?? header content-type includes json',
        '',
        '{ "a": 1 }',
        '?? body contains vehicles',
        '###',
        '?? status == 200',
      ].join('\n'),
    );
    const [request] = file.requests;
    assert.deepEqual(request.assertions, [
      { text: '?? status == 200', line: 1, column: 0 },
      { text: '?? header content-type includes json', line: 4, column: 2 },
      { text: '?? body contains vehicles', line: 7, column: 0 },
    ]);
    assert.deepEqual(request.headers, [{ name: 'Accept', value: 'application/json' }]);
    assert.equal(request.body, '{ "a": 1 }');
    assert.equal(file.requests.length, 1);
    // A `??` in a block without a request is httpYac's global assertion: refused where it stands, never ignored.
    assert.deepEqual(
      file.refused.map((p) => [p.line, p.column]),
      [[9, 0]],
    );
    assert.match(
      file.refused[0].message,
      /a global assertion, which httpYac checks on every request of the file\): not supported here/,
    );
  });

  it("reads httpYac's # @disabled and # @sleep; refuses script blocks, handlers, @loop, @ref and @forceRef at their line and column", () => {
    const file = parseRequestFile(
      [
        '# @disabled', // 0
        'GET {{baseUrl}}/a',
        '###',
        '# @sleep 250',
        'GET {{baseUrl}}/b',
        '', // 5
        '{{',
        '  test.status(200);',
        '}}',
        '###',
        '  // @loop for 3', // 10
        'GET {{baseUrl}}/c',
        '> {% client.test("x", () => client.assert(true)); %}',
        '###',
        '# @forceRef a',
        '{{baseUrl}}/d', // 15
        'X-A: 1',
        '',
        '{{ expect(response.status).toBe(200) }}',
        '< {%',
        '  request.variables.set("a", 1);', // 20
        '%}',
      ].join('\n'),
    );
    assert.deepEqual(
      file.requests.map((r) => [r.url, r.disabled, r.sleepMs, r.body]),
      [
        ['{{baseUrl}}/a', true, undefined, undefined],
        ['{{baseUrl}}/b', undefined, 250, undefined],
        ['{{baseUrl}}/c', undefined, undefined, undefined],
        ['{{baseUrl}}/d', undefined, undefined, undefined],
      ],
    );
    const refused = [...file.refused].sort((a, b) => a.line - b.line);
    assert.deepEqual(
      refused.map((r) => [r.line, r.column]),
      [
        [6, 0],
        [10, 5],
        [12, 0],
        [14, 2],
        [18, 0],
        [19, 0],
      ],
    );
    assert.deepEqual(
      file.requests.map((r) => r.refused?.length ?? 0),
      [0, 1, 2, 3],
    );
    assert.match(refused[0].message, /httpYac's script blocks/);
    assert.match(refused[1].message, /"# @loop" is not supported here/);
    assert.match(refused[2].message, /JetBrains' handler scripts \(> \{%/);
    assert.match(refused[3].message, /"# @forceRef" is not supported here/);
    assert.match(refused[4].message, /httpYac's script blocks/);
    assert.match(refused[5].message, /JetBrains' handler scripts \(< \{%/);
    // A URL or a variable alone on a line is no script.
    assert.deepEqual(parseRequestFile('{{baseUrl}}/vehicles\n\n{{body}}\n').refused, []);
  });
});

describe('contract: what the editor marks in a request file', () => {
  it('each malformed line is an error and each unsupported form a warning, at the part at fault; each request counts its assertions', () => {
    const { problems, counts } = fileAssertions(
      [
        'GET {{baseUrl}}/vehicles',
        '',
        '?? status == 200',
        '  ?? status =! 200',
        '###',
        '# @name x',
        'GET {{baseUrl}}/stops',
        '?? js response.ok == true',
        '###',
        'GET {{baseUrl}}/trips',
      ].join('\n'),
    );
    assert.deepEqual(
      problems.map((p) => [p.line, p.column, p.length, p.unsupported]),
      [
        [3, 12, 2, false],
        [7, 3, 22, true],
      ],
    );
    assert.match(problems[0].message, /"=!" is not a condition/);
    assert.deepEqual(counts, [
      { line: 0, assertions: 2 },
      { line: 6, assertions: 1 },
    ]);
    // What a test run refuses is an error here, at its place: a script block after a blank line, a global ??.
    const refused = fileAssertions(
      ['?? status == 201', '###', 'GET {{baseUrl}}/vehicles', '', '{{', '  test("x", () => {});', '}}'].join('\n'),
    ).problems;
    assert.deepEqual(
      refused.map((p) => [p.line, p.column, p.unsupported]),
      [
        [0, 0, false],
        [4, 0, false],
      ],
    );
  });
});

describe('contract: reading assertions (httpYac syntax)', () => {
  it('reads each field: status, header <name>, body, body <path>, duration [timing], and ours', () => {
    const cases: [string, unknown, string][] = [
      ['?? status == 200', { kind: 'status' }, 'status'],
      ['??status ==200', { kind: 'status' }, 'status'],
      ['?? header Content-Type includes json', { kind: 'header', name: 'Content-Type' }, 'Content-Type'],
      ['?? body contains vehicles', { kind: 'body' }, 'body'],
      [
        '?? body vehicles[0].device_id isString',
        { kind: 'body', path: [{ key: 'vehicles' }, { index: 0 }, { key: 'device_id' }] },
        'vehicles[0].device_id',
      ],
      [
        '?? body ["x-y"][\'a b\'].length > 0',
        { kind: 'body', path: [{ key: 'x-y' }, { key: 'a b' }, { key: 'length' }] },
        '["x-y"]["a b"].length',
      ],
      ['?? duration < 2000', { kind: 'duration', timing: 'total' }, 'duration'],
      ['?? duration firstByte < 500', { kind: 'duration', timing: 'firstByte' }, 'duration firstByte'],
      ['?? mds items > 0', { kind: 'mdsItems' }, 'mds items'],
      ['?? mds conformance', { kind: 'mdsConformance' }, 'mds conformance'],
      ['?? mds pages', { kind: 'mdsPages' }, 'mds pages'],
      ['?? token accepted', { kind: 'tokenAccepted' }, 'token accepted'],
    ];
    for (const [text, subject, field] of cases) {
      const a = assertion(text);
      assert.deepEqual(a.subject, subject, text);
      assert.equal(a.field, field, text);
    }
    const a = assertion('?? body name == Wake up to WonderWidgets!');
    assert.deepEqual([a.operator, a.expected], ['==', 'Wake up to WonderWidgets!']);
  });

  it('reads every condition httpYac has, by each of its ids', () => {
    const unary = new Set(['exists', 'isTrue', 'isFalse', 'isNumber', 'isBoolean', 'isString', 'isArray']);
    assert.deepEqual(predicateIds().sort(), [
      '!=',
      '!==',
      '<',
      '<=',
      '==',
      '===',
      '>',
      '>=',
      'contains',
      'endsWith',
      'equals',
      'exists',
      'includes',
      'isArray',
      'isBoolean',
      'isFalse',
      'isNumber',
      'isString',
      'isTrue',
      'matches',
      'md5',
      'not equals',
      'sha256',
      'sha512',
      'startsWith',
    ]);
    for (const id of predicateIds()) {
      const a = assertion(`?? status ${id}${unary.has(id) ? '' : ' 200'}`);
      assert.equal(a.operator, id);
      assert.equal(a.expected, unary.has(id) ? undefined : '200');
    }
    assert.equal(assertion('?? status ===200').operator, '===', 'the longest symbol is read');
  });

  it('says what is malformed, where (line and column of the part at fault)', () => {
    const cases: [string, number, RegExp][] = [
      [
        '?? stat == 200',
        3,
        /"stat" is not a field an assertion can read: use status, header <name>, body \[path\], duration/,
      ],
      ['?? status =! 200', 10, /"=!" is not a condition: use one of ==, ===, equals/],
      ['?? status', 0, /needs a condition and a value, as in "\?\? status == 200"/],
      ['?? status >', 10, /">" needs a value to compare with/],
      ['?? header == x', 10, /Name the header/],
      ['?? status isNumber 7', 19, /"isNumber" takes no value: remove "7"/],
      ['?? mds conformance strict', 19, /takes no condition: remove "strict"/],
      ['?? mds item > 0', 7, /"item" is no MDS check/],
      ['?? token', 3, /Write "\?\? token accepted"/],
      ['??', 0, /asserts nothing/],
      [
        '?? body $.vehicles.length > 0',
        8,
        /JSONPath; httpYac reads the body path as property access: write "\?\? body vehicles.length …"/,
      ],
    ];
    for (const [text, column, message] of cases) {
      const p = problem(`${text}`, 4);
      assert.match(p.message, message, text);
      assert.equal(p.line, 7);
      assert.equal(p.column, 4 + column, `${text}: column`);
      assert.equal(p.unsupported, false, text);
    }
  });

  it('reports script forms as not supported here, never skips them', () => {
    for (const [text, message] of [
      ['?? js response.parsedBody.x == 1', /"\?\? js" is not supported here: no user script runs/],
      ['?? xpath /a/@b == c', /"\?\? xpath" is not supported here/],
      [
        '?? body vehicles.map(v => v.id) isArray',
        /is not a property path \(at "\(v"\).*A JavaScript expression is not run here/,
      ],
      ['?? duration tcp < 10', /"duration tcp" is not supported here/],
    ] as const) {
      const p = problem(text);
      assert.equal(p.unsupported, true, text);
      assert.match(p.message, message);
    }
  });
});

describe('contract: checking assertions against an answer', () => {
  it('compares numbers with numbers and texts with texts, converting the expected value as httpYac does', () => {
    passes('?? status == 200');
    passes('?? status === 200');
    passes('?? status equals 200');
    passes('?? status != 201');
    passes('?? status > 199');
    passes('?? status >= 200');
    passes('?? status < 201');
    passes('?? status <= 200');
    passes('?? status startsWith 20');
    passes('?? status endsWith 00');
    passes('?? status matches ^2\\d\\d$');
    passes('?? status isNumber');
    // A header is text: "42" equals 42 written as text, and compares as a number.
    passes('?? header content-length == 42');
    passes('?? header content-length > 40');
    passes('?? header content-length isString');
    passes('?? header Content-Type includes json');
    passes('?? header content-type contains vnd.mds');
    // A number in the body against the expected text, and the other way round.
    passes('?? body vehicles[0].battery == 0.5');
    passes('?? body vehicles[0].battery < 1');
    passes('?? body version == 2.0');
    passes('?? body version == 2.0', page({ body: { version: 2 } }));
    passes('?? body vehicles[0].active == true');
    passes('?? body vehicles[0].active isBoolean');
    passes('?? body vehicles isArray');
    passes('?? body vehicles.length == 2');
    passes('?? body vehicles[0].tags includes x');
    passes('?? body vehicles[0].tags == ["x","y"]');
    passes('?? body links == {"next":null}');
    passes('?? body links.next == null');
    passes('?? body contains device_id');
    passes('?? body startsWith {');
    passes('?? body vehicles[1].device_id endsWith b');
    passes('?? duration < 2000');
    passes('?? duration firstByte == 30');
    passes('?? duration download == 15');
    passes('?? mds items > 0');
    passes('?? mds items == 2');
    // httpYac keeps quotes as part of the expected text: "200" is no number.
    const quoted = fails('?? status == "200"');
    assert.equal(quoted.actual, '200');
  });

  it('fails with the assertion, the expected and the actual value', () => {
    const status = fails('?? status == 201');
    assert.equal(status.message, '?? status == 201: expected == 201, actual 200');
    const header = fails('?? header content-type includes xml');
    assert.equal(header.expected, 'includes xml');
    assert.equal(header.actual, '"application/vnd.mds+json;version=2.0"');
    assert.equal(fails('?? duration < 10').actual, '45');
    assert.equal(
      fails('?? body vehicles[0].device_id isNumber').message,
      '?? body vehicles[0].device_id isNumber: expected a number, actual "a"',
    );
    assert.equal(fails('?? body vehicles.length > 5').actual, '2');
    assert.equal(fails('?? mds items == 0').actual, '2');
    assert.match(
      fails('?? mds items > 0', page({ body: { error: 'x' } })).actual ?? '',
      /no item list in the answer \(200 OK\)/,
    );
  });

  it("gives an editor's diff the two values alone on a failed equality, never the operator; other conditions get none", () => {
    // VS Code's Testing view writes "actual != expected" from these: "200 != == 201" was the defect.
    assert.deepEqual(fails('?? status == 201').diff, { expected: '201', actual: '200' });
    assert.deepEqual(fails('?? header content-type === text/csv').diff, {
      expected: 'text/csv',
      actual: 'application/vnd.mds+json;version=2.0',
    });
    assert.deepEqual(fails('?? body vehicles[0].tags equals ["x"]').diff, {
      expected: '[\n  "x"\n]',
      actual: '[\n  "x",\n  "y"\n]',
    });
    for (const text of [
      '?? duration < 10',
      '?? header content-type includes xml',
      '?? body vehicles[0].device_id isNumber',
      '?? status != 200',
      '?? body nothing.here == 1',
    ]) {
      assert.equal(fails(text).diff, undefined, `${text}: no diff`);
    }
  });

  it('a missing path fails with a clear message; exists and isFalse read a missing last step as absent', () => {
    assert.equal(
      fails('?? body vehicles[0].speed > 1').message,
      '?? body vehicles[0].speed > 1: expected > 1, actual the body has no vehicles[0].speed',
    );
    assert.equal(fails('?? body trips[0].trip_id exists').actual, 'the body has no trips');
    assert.equal(fails('?? body vehicles[5].device_id == a').actual, 'the body has no vehicles[5]');
    assert.equal(fails('?? body vehicles[0].speed exists').actual, 'the body has no vehicles[0].speed');
    passes('?? body vehicles[0].speed isFalse');
    passes('?? body vehicles[0].deleted isFalse');
    assert.equal(fails('?? header x-missing == 1').actual, 'no x-missing header');
    passes('?? header x-missing isFalse');
  });

  it('checks hashes of the body text as httpYac does (base64 digests)', () => {
    const answer = page({ body: 'hello', bodyKind: 'text', text: 'hello' });
    const digest = (algorithm: string) => createHash(algorithm).update('hello').digest('base64');
    passes(`?? body sha256 ${digest('sha256')}`, answer);
    passes(`?? body sha512 ${digest('sha512')}`, answer);
    passes(`?? body md5 ${digest('md5')}`, answer);
    // A failed hash shows the digest of what was read, the value it compared.
    assert.equal(fails(`?? body md5 ${digest('sha256')}`, answer).actual, `md5 ${digest('md5')} (of "hello")`);
    passes('?? body == hello', answer);
  });

  it('shows the expected value as written: == "" and endsWith 01, not what it converts to', () => {
    assert.equal(fails('?? status endsWith 01').expected, 'endsWith 01');
    assert.equal(fails('?? body vehicles[0].device_id ==').expected, '== ""');
    assert.equal(fails('?? status == 0201').expected, '== 0201');
  });

  it('a 200 whose body is not JSON fails the assertions that read the body, saying so; ?? body as text still reads it', () => {
    const html = page({
      body: '<html>hi</html>',
      bodyKind: 'text',
      text: '<html>hi</html>',
      contentType: 'text/html',
      bodyProblem: 'The body is not JSON: its content type is text/html, and it starts with "<html>hi</html>".',
    });
    for (const text of ['?? body vehicles isArray', '?? mds items > 0', '?? mds conformance'])
      assert.match(fails(text, html).actual ?? '', /^The body is not JSON: its content type is text\/html/, text);
    passes('?? body includes hi', html);
    passes('?? status == 200', html);
  });

  it('token accepted passes on any answer but 401 and 403, and a refusal says what the refusal doctor says', () => {
    passes('?? token accepted');
    passes('?? token accepted', page({ status: 404, statusText: 'Not Found', ok: false }));
    const refused = page({ status: 401, statusText: 'Unauthorized', ok: false, body: { error: 'invalid_token' } });
    const outcome = evaluateAssertion(assertion('?? token accepted'), refused, {
      explainRefusal: () => ['Likely cause: the key is unknown.', 'kid: ab…yz'],
    });
    assert.equal(outcome.passed, false);
    assert.equal(
      outcome.message,
      '?? token accepted: the server answered 401 Unauthorized. Likely cause: the key is unknown. kid: ab…yz',
    );
    assert.equal(
      fails('?? token accepted', page({ status: 403, statusText: 'Forbidden', ok: false })).message,
      '?? token accepted: expected no 401 or 403, actual 403 Forbidden',
    );
  });

  it('mds conformance: zero findings passes, a finding fails naming its rule; an error answer has nothing to check', () => {
    const vehicle = {
      device_id: '5f3f6d4a-0f65-4b4e-9d3a-7c1f6a2b9e01',
      provider_id: '5f3f6d4a-0f65-4b4e-9d3a-7c1f6a2b9e02',
      vehicle_id: 'V-1',
      vehicle_type: 'scooter_standing',
      propulsion_types: ['electric'],
      battery_capacity: 500,
      maximum_speed: 25,
    };
    const good = page({
      body: { version: '2.0.0', vehicles: [vehicle], links: { first: null, last: null, prev: null, next: null } },
    });
    const verdict = evaluateAssertion(assertion('?? mds conformance'), good);
    if (!verdict.passed) assert.fail(`a conforming page passes: ${verdict.message}`);
    const bad = page({
      body: {
        version: '2.0.0',
        vehicles: [{ ...vehicle, vehicle_type: 'hovercraft' }],
        links: { first: null, last: null, prev: null, next: null },
      },
    });
    const finding = fails('?? mds conformance', bad);
    assert.match(
      finding.expected ?? '',
      /^zero findings against the official MDS 2\.0 schemas \(openmobilityfoundation\/[\w-]+@[0-9a-f]{7}\)$/,
    );
    assert.match(
      finding.actual ?? '',
      /^1 findings in 1 of 1 items \(vehicles\): 1 × .* at \/vehicles\/\*\/vehicle_type/,
    );
    assert.match(
      fails('?? mds conformance', page({ status: 500, statusText: 'Internal Server Error', ok: false })).actual ?? '',
      /500 Internal Server Error: no MDS answer to check/,
    );
  });
});
