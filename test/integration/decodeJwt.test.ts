import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { keyFixture } from '../unit/keyFixtures';
import { run as runCommand } from './extensionApi';
import type { Outcome as BaseOutcome } from './extensionApi';

type Outcome = BaseOutcome & { source?: string; payload?: { jti?: string } };
const run = (command: string, ...args: unknown[]) => runCommand<Outcome>(command, ...args);

/**
 * Runs Decode JWT without an argument and answers its question with `answer` (a workbench command such
 * as accepting or closing the quick input), repeated until the command returns: the question opens
 * when the command gets there, and an answer before that does nothing.
 */
async function decodeAnswering(answer: string): Promise<Outcome> {
  let outcome: Outcome | undefined;
  const running = Promise.resolve(run('mobilityApi.decodeJwt')).then((o) => (outcome = o));
  const deadline = Date.now() + 20_000;
  while (!outcome && Date.now() < deadline) {
    await vscode.commands.executeCommand(answer);
    await Promise.race([running, new Promise((r) => setTimeout(r, 200))]);
  }
  assert.ok(outcome, 'Decode JWT returned');
  return outcome;
}

describe('Decode JWT with a token on the clipboard', function () {
  this.timeout(60_000);
  const jti = randomUUID();

  before(async () => {
    const { SignJWT } = await import('jose');
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({
      iss: 'clip@org.test.invalid',
      aud: 'https://clip.test.invalid',
      iat: now,
      exp: now + 300,
      jti,
    })
      .setProtectedHeader({ alg: 'ES256', kid: 'clip-kid' })
      .sign(keyFixture('p256').privateKey);
    // No editor, so neither a selection nor a token under the cursor: the clipboard's token is the candidate.
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.env.clipboard.writeText(token);
  });

  after(async () => {
    await vscode.env.clipboard.writeText('');
  });

  it('asks before it decodes: closing the question decodes nothing', async () => {
    const outcome = await decodeAnswering('workbench.action.closeQuickOpen');
    assert.deepEqual(
      { ok: outcome.ok, code: outcome.code },
      { ok: false, code: 'CANCELLED' },
      `returned ${JSON.stringify(outcome)}`,
    );
  });

  it("the first choice is the clipboard's token, decoded once the user confirms", async () => {
    const outcome = await decodeAnswering('workbench.action.acceptSelectedQuickOpenItem');
    assert.equal(outcome.ok, true, outcome.message);
    assert.equal(outcome.source, 'Decoded from the clipboard');
    assert.equal(outcome.payload?.jti, jti);
  });
});
