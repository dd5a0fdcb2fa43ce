import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { curlCommand } from '../../src/core/http/curlCommand';
import { shellQuote } from '../../src/core/base/shellQuote';

/** Lets a real shell split the command line: printf shows each argument on its own line. */
function shellArgs(cmd: string, env: Record<string, string> = {}): string[] {
  return execFileSync('sh', ['-c', cmd.replace(/^curl /, 'printf "%s\\n" ')], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
  })
    .trimEnd()
    .split('\n');
}

describe('curlCommand', () => {
  it('quotes every header and the URL so a shell passes them through unchanged, and adds the token last', () => {
    const hostile = `it's $(touch /tmp/x) \`id\` "q" ;|&`;
    const url = `https://h.test.invalid/a?x=1&y='2'`;
    const cmd = curlCommand(
      url,
      { Authorization: 'Bearer <redacted>', 'User-Agent': 'x', 'X-Note': hostile },
      { token: 'eyJ.fresh.token' },
    );
    assert.deepEqual(shellArgs(cmd), [
      '--fail-with-body',
      '-sS',
      url,
      '-H',
      `X-Note: ${hostile}`,
      '-H',
      'Authorization: Bearer eyJ.fresh.token',
    ]);
    assert.equal(shellQuote(''), "''");
  });

  it('can leave the token to a shell variable, for a preview without a secret', () => {
    const cmd = curlCommand('https://h.test.invalid/v', { Accept: 'application/json' }, { shellVariable: 'TOKEN' });
    assert.ok(!cmd.includes('eyJ'));
    assert.deepEqual(shellArgs(cmd, { TOKEN: 'abc' }), [
      '--fail-with-body',
      '-sS',
      'https://h.test.invalid/v',
      '-H',
      'Accept: application/json',
      '-H',
      'Authorization: Bearer abc',
    ]);
  });
});
