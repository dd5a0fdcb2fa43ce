// The http language's TextMate grammar (issue #24: .http files opened as Plain Text): each kind of line of
// a REST Client / httpYac request file is taken by the rule meant for it, in the grammar's own order.
// The rules' regular expressions are plain enough for JavaScript's engine, so each line is matched here
// as VS Code's tokenizer matches the first rule of a line (the rule order decides, as there).
import assert from 'node:assert/strict';
import fs from 'node:fs';

interface Rule {
  match?: string;
  begin?: string;
  end?: string;
  include?: string;
  patterns?: Rule[];
}
interface Grammar {
  scopeName: string;
  patterns: Rule[];
  repository: Record<string, Rule>;
}

const grammar = JSON.parse(fs.readFileSync('syntaxes/http.tmLanguage.json', 'utf8')) as Grammar;
const manifest = JSON.parse(fs.readFileSync('package.json', 'utf8')) as {
  contributes: {
    languages: { id: string; extensions: string[]; configuration: string }[];
    grammars: { language: string; scopeName: string; path: string; embeddedLanguages: Record<string, string> }[];
  };
};

/** The repository rules a top-level include list expands to, in order, with their names. */
function topRules(): { name: string; rule: Rule }[] {
  const out: { name: string; rule: Rule }[] = [];
  for (const p of grammar.patterns) {
    const name = (p.include ?? '').replace(/^#/, '');
    const rule = grammar.repository[name];
    if (rule.patterns && !rule.begin) for (const sub of rule.patterns) out.push({ name, rule: sub });
    else out.push({ name, rule });
  }
  return out;
}

/** The first top-level rule that takes `line`, and its captures. */
function ruleOf(line: string): { name: string; groups: (string | undefined)[] } {
  for (const { name, rule } of topRules()) {
    const source = rule.match ?? rule.begin;
    if (!source) continue;
    const m = new RegExp(source).exec(line);
    if (m && m.index === 0 && (rule.begin || m[0].length === line.length || /\$$/.test(source)))
      return { name, groups: [...m] };
  }
  return { name: 'none', groups: [] };
}

describe('the http language grammar (issue #24)', () => {
  it('is contributed for .http and .rest with its language configuration, and embeds JSON', () => {
    const language = manifest.contributes.languages.find((l) => l.id === 'http');
    assert.ok(language);
    assert.deepEqual(language.extensions, ['.http', '.rest']);
    assert.ok(fs.existsSync(language.configuration.replace(/^\.\//, '')));
    const entry = manifest.contributes.grammars.find((g) => g.language === 'http');
    assert.ok(entry);
    assert.equal(entry.scopeName, grammar.scopeName);
    assert.equal(entry.embeddedLanguages['meta.embedded.block.json'], 'json');
    assert.ok(
      grammar.repository['json-body'].patterns?.some((p) => p.include === 'source.json'),
      'bodies are highlighted as JSON',
    );
    const config = JSON.parse(fs.readFileSync(language.configuration.replace(/^\.\//, ''), 'utf8')) as {
      comments: { lineComment: string };
    };
    assert.equal(config.comments.lineComment, '#');
  });

  const cases: [string, string, (string | undefined)[]?][] = [
    ['###', 'separator'],
    ['### list the vehicles', 'separator'],
    ['# @name vehicles', 'directive', [undefined, '#', '@', 'name', 'vehicles']],
    ['// @no-redirect', 'directive'],
    ['# a comment', 'comment'],
    ['// a comment', 'comment'],
    ['@baseUrl = https://mds.example.test/provider', 'file-variable', [undefined, '@', 'baseUrl', '=']],
    ['GET {{baseUrl}}/trips?end_time=2026-11-24T13 HTTP/1.1', 'request-line', [undefined, 'GET']],
    ['POST https://example.test/a', 'request-line'],
    ['GRPC {{grpcTarget}}/mobility.sandbox.v1.VehicleService/ListVehicles', 'request-line', [undefined, 'GRPC']],
    ['proto < ./protos/vehicles.proto', 'proto-import', [undefined, 'proto', '<', './protos/vehicles.proto']],
    ['===', 'frame-separator'],
    ['https://example.test/vehicles', 'bare-url'],
    ['    &end_time=2026-11-24T13', 'query-line'],
    ['Accept: application/vnd.mds+json;version=2.0', 'header', [undefined, 'Accept', ':']],
    ['Authorization: Bearer {{token}}', 'header'],
    ['{', 'json-body'],
    ['[1, 2]', 'json-body'],
    ['?? status == 200', 'assertion', [undefined, '??', undefined, undefined, undefined, undefined, 'status']],
    [
      '  ?? header content-type includes json',
      'assertion',
      [undefined, '??', undefined, undefined, undefined, undefined, 'header'],
    ],
    ['?? body vehicles[0].device_id isString', 'assertion'],
    ['?? js response.parsedBody.x == 1', 'assertion'],
    ['?? mds conformance', 'assertion', [undefined, '??', 'mds', 'conformance']],
    ['?? mds items > 0', 'assertion', [undefined, '??', 'mds', 'items']],
    ['?? token accepted', 'assertion', [undefined, '??', undefined, undefined, 'token', 'accepted']],
    ['?? messages > 0', 'assertion', [undefined, '??', undefined, undefined, undefined, undefined, 'messages']],
  ];
  for (const [line, rule, groups] of cases) {
    it(`takes "${line}" as ${rule}`, () => {
      const got = ruleOf(line);
      assert.equal(got.name, rule);
      if (groups) groups.forEach((g, i) => g !== undefined && assert.equal(got.groups[i], g, `group ${i}`));
    });
  }

  it('an assertion line ends a JSON body, and its condition is found', () => {
    const body = grammar.repository['json-body'];
    assert.ok(new RegExp(body.end ?? '').test('?? status == 200'), 'the body ends at an assertion line');
    assert.ok(!new RegExp(body.end ?? '').test('  "a": 1'));
    const [symbol, word] = (grammar.repository.assertion.patterns ?? []).map((p) => new RegExp(p.match as string, 'g'));
    assert.deepEqual(
      [...'?? status ==200'.matchAll(symbol)].map((m) => m[1]),
      ['=='],
    );
    assert.deepEqual(
      [...'?? header content-type includes json'.matchAll(word)].map((m) => m[1]),
      ['includes'],
    );
    assert.deepEqual(
      [...'?? body active isBoolean'.matchAll(word)].map((m) => m[1]),
      ['isBoolean'],
    );
    assert.deepEqual(
      [...'?? body includesX == 1'.matchAll(word)].map((m) => m[1]),
      [],
    );
  });

  it('finds {{variables}}, and the HTTP version at the end of a request line', () => {
    const variable = new RegExp(grammar.repository.variable.match as string, 'g');
    assert.deepEqual(
      [...'GET {{ baseUrl }}/x?t={{hour}}'.matchAll(variable)].map((m) => m[2]),
      ['baseUrl', 'hour'],
    );
    const version = grammar.repository['request-line'].patterns?.[0].match as string;
    assert.equal(new RegExp(version).exec(' https://a/b HTTP/1.1')?.[1], 'HTTP/1.1');
  });
});
