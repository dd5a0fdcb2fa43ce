import assert from 'node:assert/strict';
import fs from 'node:fs';
import { COMMANDS } from '../../src/vscode/platform/commandIds';

interface Manifest {
  name: string;
  icon?: string;
  repository?: { url?: string };
  bugs?: { url?: string };
  homepage?: string;
  displayName: string;
  engines: { vscode: string };
  devDependencies: Record<string, string>;
  activationEvents: string[];
  contributes: {
    commands: Array<{ command: string; title: string; category?: string; icon?: string }>;
    configuration: {
      properties: Record<string, { markdownDescription?: string; description?: string; default?: unknown }>;
    };
    menus: Record<string, Array<{ command: string }>>;
  };
}

const manifest = JSON.parse(fs.readFileSync('package.json', 'utf8')) as Manifest;
const nls = JSON.parse(fs.readFileSync('package.nls.json', 'utf8')) as Record<string, string>;
/** The extension's doc: its Commands and Settings tables are the reference users read (the README links to it). */
const VSCODE_DOC = 'docs/vscode.md';
const vscodeDoc = fs.readFileSync(VSCODE_DOC, 'utf8');
const nlsValue = (s: string | undefined) => (s && /^%.+%$/.test(s) ? nls[s.slice(1, -1)] : s);

/** The cells of each row of the Markdown table under `heading` (header and separator rows left out). */
function tableRows(markdown: string, heading: string): string[][] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.replace(/^#+\s*/, '') === heading && line.startsWith('#'));
  assert.ok(start >= 0, `${VSCODE_DOC} has a heading "${heading}"`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('#')) break;
    if (!line.startsWith('|')) {
      if (rows.length) break;
      continue;
    }
    rows.push(
      line
        .slice(1, line.endsWith('|') ? -1 : undefined)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );
  }
  return rows.slice(2);
}

/** `a` / `b` in a cell: the names it lists, without backticks. */
const namesIn = (cell: string) => cell.split(' / ').map((name) => name.trim().replace(/^`(.*)`$/, '$1'));

describe('the manifest and the docs agree with the code', () => {
  it('keeps the names users type', () => {
    assert.equal(manifest.name, 'mobility-api-explorer');
    assert.equal(manifest.displayName, 'Mobility API Explorer');
    assert.ok(!manifest.activationEvents.includes('*'), 'no "*" activation');
  });

  it('contributes every registered command as mobilityApi.<camelVerb> in the "Mobility API" category, with a title and icon', () => {
    const contributed = new Set(manifest.contributes.commands.map((c) => c.command));
    for (const id of Object.values(COMMANDS)) assert.ok(contributed.has(id), `${id} is registered but not contributed`);
    const known = new Set<string>(Object.values(COMMANDS));
    for (const id of contributed)
      assert.ok(
        known.has(id),
        `${id} is contributed but not in COMMANDS (src/vscode/platform/commandIds.ts), the one map of command ids`,
      );
    for (const c of manifest.contributes.commands) {
      assert.match(c.command, /^mobilityApi\.[a-z][A-Za-z]+$/);
      assert.equal(nlsValue(c.category), 'Mobility API', c.command);
      assert.ok(nlsValue(c.title), `${c.command} has a title in package.nls.json`);
      assert.match(c.icon ?? '', /^\$\([a-z-]+\)$/, `${c.command} has a codicon`);
    }
  });

  it('each command palette title, typed as it reads, finds no other command of ours (the palette matches words in order)', () => {
    // VS Code's palette matches each typed word as the start of a word of the title, in order, skipping others: typed
    // "Send Request", a title "Send gRPC Request…" matched too and came first (sorted by name), and Enter ran it.
    const menus = manifest.contributes.menus as Record<string, Array<{ command: string; when?: string }>>;
    const hidden = new Set((menus.commandPalette ?? []).filter((m) => m.when === 'false').map((m) => m.command));
    const words = (title: string) =>
      title
        .toLowerCase()
        .replace(/…/g, '')
        .split(/[^\p{L}\p{N}]+/u)
        .filter(Boolean);
    const finds = (typed: string[], title: string[]) => {
      let at = 0;
      for (const word of title) if (at < typed.length && word.startsWith(typed[at])) at++;
      return at === typed.length;
    };
    const titled = manifest.contributes.commands
      .filter((c) => !hidden.has(c.command))
      .map((c) => ({ id: c.command, words: words(nlsValue(c.title) ?? '') }));
    for (const typed of titled) {
      const others = titled
        .filter((c) => c.id !== typed.id && finds(typed.words, c.words))
        .map((c) => c.words.join(' '));
      assert.deepEqual(others, [], `typing "${typed.words.join(' ')}" (${typed.id}) also finds ${others.join(', ')}`);
    }
  });

  it('menus name only contributed commands', () => {
    const contributed = new Set(manifest.contributes.commands.map((c) => c.command));
    for (const [menu, items] of Object.entries(manifest.contributes.menus)) {
      for (const item of items) assert.ok(contributed.has(item.command), `${menu} names ${item.command}`);
    }
  });

  it('describes every setting, and every %key% has a text', () => {
    for (const [key, setting] of Object.entries(manifest.contributes.configuration.properties)) {
      assert.ok(key.startsWith('mobilityApi.'), key);
      assert.ok(nlsValue(setting.markdownDescription ?? setting.description), `${key} has a description`);
    }
    const keys = JSON.stringify(manifest).match(/%[A-Za-z0-9.]+%/g) ?? [];
    for (const k of keys) assert.ok(nls[k.slice(1, -1)] !== undefined, `${k} is in package.nls.json`);
  });

  it(`${VSCODE_DOC} has one row per command in its Commands table, with the title users see`, () => {
    const rows = tableRows(vscodeDoc, 'Commands (category "Mobility API")');
    const contributed = new Map(manifest.contributes.commands.map((c) => [c.command, nlsValue(c.title) ?? '']));
    const listed = new Map<string, string>();
    for (const [titles = '', ids = ''] of rows) {
      const idList = namesIn(ids);
      const titleList = namesIn(titles);
      assert.equal(titleList.length, idList.length, `the row of ${ids} names as many titles as ids`);
      idList.forEach((id, i) => {
        assert.ok(!listed.has(id), `${id} has one row, not two`);
        listed.set(id, titleList[i] ?? '');
      });
    }
    for (const [id, title] of contributed) {
      assert.ok(listed.has(id), `${VSCODE_DOC} lacks a row for ${id}`);
      // A command shown in a menu of its own may say where, in parentheses: "Decode JWT (debugger)".
      const shown = (listed.get(id) ?? '').replace(/ \([^)]*\)$/, '');
      assert.ok(
        listed.get(id) === title || shown === title,
        `the row of ${id} calls it "${listed.get(id) ?? ''}", the palette "${title}"`,
      );
    }
    for (const id of listed.keys())
      assert.ok(contributed.has(id), `${VSCODE_DOC} lists ${id}, which the manifest does not contribute`);
  });

  it(`${VSCODE_DOC} has one row per setting in its Settings table, with its default`, () => {
    const rows = tableRows(vscodeDoc, 'Settings');
    const properties = manifest.contributes.configuration.properties;
    const listed = new Map<string, string>();
    for (const [key = '', defaultCell = ''] of rows) {
      const name = namesIn(key)[0] ?? '';
      assert.ok(!listed.has(name), `${name} has one row, not two`);
      assert.ok(name in properties, `${VSCODE_DOC} lists ${name}, which the manifest does not contribute`);
      listed.set(name, defaultCell);
    }
    for (const [key, setting] of Object.entries(properties)) {
      assert.ok(listed.has(key), `${VSCODE_DOC} lacks a row for ${key}`);
      // A default written as code must be the manifest's; one in words ("empty lists") is read by people.
      const cell = listed.get(key) ?? '';
      const code = /^`(.*)`$/.exec(cell)?.[1];
      if (code === undefined) continue;
      const wanted =
        typeof setting.default === 'string' && setting.default !== ''
          ? setting.default
          : JSON.stringify(setting.default);
      assert.equal(code, wanted, `the default of ${key}`);
    }
  });

  it('the README points to the doc of every command and setting', () => {
    assert.ok(fs.readFileSync('README.md', 'utf8').includes(`](${VSCODE_DOC})`), `the README links to ${VSCODE_DOC}`);
  });

  it('@types/vscode is no newer than engines.vscode', () => {
    const version = (range: string) => (/(\d+)\.(\d+)/.exec(range) ?? []).slice(1, 3).map(Number);
    const [typesMajor, typesMinor] = version(manifest.devDependencies['@types/vscode']);
    const [engineMajor, engineMinor] = version(manifest.engines.vscode);
    assert.ok(
      typesMajor < engineMajor || (typesMajor === engineMajor && typesMinor <= engineMinor),
      `${manifest.devDependencies['@types/vscode']} vs ${manifest.engines.vscode}`,
    );
  });

  it('is ready for the Marketplace: a 128x128 PNG icon shipped in the VSIX, repository, bugs and homepage', () => {
    assert.ok(manifest.icon, 'an icon');
    const png = fs.readFileSync(manifest.icon);
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'the icon is a PNG');
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [128, 128], 'the icon is 128x128');
    const ignored = fs
      .readFileSync('.vscodeignore', 'utf8')
      .split('\n')
      .map((l) => l.trim());
    assert.ok(
      !ignored.some((pattern) => pattern === manifest.icon || pattern === 'media/**'),
      'the icon is not left out of the VSIX',
    );
    for (const url of [manifest.repository?.url, manifest.bugs?.url, manifest.homepage])
      assert.match(url ?? '', /^https:\/\//);
  });
});
