import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { curlCommand, shellQuote } from '../../src/core/curlCommand';

describe('curlCommand', () => {
  it('quotes every header and the URL so a shell passes them through unchanged', () => {
    const hostile = `it's $(touch /tmp/x) \`id\` "q" ;|&`;
    const cmd = curlCommand(`https://h.test.invalid/a?x=1&y='2'`, { Authorization: 'Bearer abc', 'X-Note': hostile });
    // Let a real shell split the line: printf shows each argument on its own line.
    const args = execFileSync('sh', ['-c', cmd.replace(/^curl /, 'printf "%s\\n" ')], { encoding: 'utf8' }).trimEnd().split('\n');
    assert.deepEqual(args, ['--silent', '--show-error', '--fail-with-body', '-H', 'Authorization: Bearer abc', '-H', `X-Note: ${hostile}`, `https://h.test.invalid/a?x=1&y='2'`]);
    assert.equal(shellQuote(''), "''");
  });
});
