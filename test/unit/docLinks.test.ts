// Every relative link of the README and the docs leads somewhere: the file exists and, for a link into a
// Markdown file, the heading it names is there (GitHub's anchors). The README sends newcomers into docs/, so a
// section renamed or moved must not leave a dead link behind (issue 30).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

/** The Markdown files a reader follows links through, relative to the repository root. */
function documents(): string[] {
  const docs = fs
    .readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  return ['README.md', 'CONTRIBUTING.md', 'ARCHITECTURE.md', 'SECURITY.md', 'CHANGELOG.md', ...docs].filter((f) =>
    fs.existsSync(f),
  );
}

/** The text outside fenced code blocks and inline code, where a `[x](y)` is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2, … */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const match of withoutFences.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const text = match[1].replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count ? `${slug}-${count}` : slug);
  }
  return anchors;
}

/** The relative links of `file` (its text given) that lead nowhere, each with the reason. */
function deadLinks(
  file: string,
  text: string,
  read: (p: string) => string | undefined,
  exists: (p: string) => boolean,
): string[] {
  const dead: string[] = [];
  for (const match of prose(text).matchAll(/!?\[(?:[^\]]|\][^(])*?\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = match[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, vscode: …
    const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
    const resolved = pathPart
      ? path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURI(pathPart)))
      : file;
    if (!exists(resolved)) {
      dead.push(`${file}: ${target} (no file ${resolved})`);
      continue;
    }
    if (anchor !== undefined && resolved.endsWith('.md')) {
      const linked = resolved === file ? text : (read(resolved) ?? '');
      if (!headingAnchors(linked).has(decodeURIComponent(anchor).toLowerCase()))
        dead.push(`${file}: ${target} (no heading #${anchor} in ${resolved})`);
    }
  }
  return dead;
}

const readFile = (p: string) => (fs.existsSync(p) && fs.statSync(p).isFile() ? fs.readFileSync(p, 'utf8') : undefined);

describe('links in the README and the docs (issue 30)', () => {
  it('finds a missing file and a missing heading (the check can fail)', () => {
    const files: Record<string, string> = { 'docs/a.md': '# A\n\n## Two words: `code` here?\n', 'README.md': '' };
    const text = [
      '[ok](docs/a.md#two-words-code-here) [dead file](docs/none.md) [dead anchor](docs/a.md#three)',
      '[self](#top) ![img](media/x.png) [web](https://example.com/#x)',
      '```\n[in code](docs/none.md)\n```',
      '# Top',
    ].join('\n');
    const dead = deadLinks(
      'README.md',
      text,
      (p) => files[p],
      (p) => p in files,
    );
    assert.deepEqual(dead, [
      'README.md: docs/none.md (no file docs/none.md)',
      'README.md: docs/a.md#three (no heading #three in docs/a.md)',
      'README.md: media/x.png (no file media/x.png)',
    ]);
  });

  it('gives headings the anchors GitHub gives them', () => {
    const anchors = headingAnchors(
      '# The CLI: `mobility-api grpc`\n## In VS Code: Fetch Hours…\n## Notes\n## Notes\n```\n# not a heading\n```\n',
    );
    assert.deepEqual([...anchors], ['the-cli-mobility-api-grpc', 'in-vs-code-fetch-hours', 'notes', 'notes-1']);
  });

  for (const file of documents()) {
    it(`${file}: every relative link leads to a file and heading that exist`, () => {
      assert.deepEqual(
        deadLinks(file, fs.readFileSync(file, 'utf8'), readFile, (p) => fs.existsSync(p)),
        [],
      );
    });
  }

  it('the README maps every doc in docs/', () => {
    const readme = fs.readFileSync('README.md', 'utf8');
    const unmapped = documents().filter((f) => f.startsWith('docs/') && !readme.includes(`](${f})`));
    assert.deepEqual(unmapped, [], 'docs the README does not link to');
  });
});
