import assert from 'node:assert/strict';
import path from 'node:path';
import * as vscode from 'vscode';
import { closeUnsavedUntitled, exportsOf, run } from './extensionApi';

/** The markdown of our hover at a position (other providers may answer too). */
async function jwtHoverAt(
  uri: vscode.Uri,
  position: vscode.Position,
): Promise<{ markdown: vscode.MarkdownString; range?: vscode.Range } | undefined> {
  const hovers =
    (await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, position)) ?? [];
  for (const hover of hovers) {
    for (const content of hover.contents) {
      if (content instanceof vscode.MarkdownString && content.value.startsWith('**JWT**'))
        return { markdown: content, range: hover.range };
    }
  }
  return undefined;
}

/** The argument of the hover's "Open decoded view" command link. */
function linkArgument(markdown: string): unknown {
  const match = /\(command:mobilityApi\.openDecodedToken\?([^)\s]+)\)/.exec(markdown);
  assert.ok(match, `the hover links to the decoded view: ${markdown.slice(0, 300)}`);
  const args = JSON.parse(decodeURIComponent(match[1])) as unknown[];
  return args[0];
}

/** Resolves when `predicate` holds after an event (or already holds), or rejects after `ms`. */
function waitFor<T>(event: vscode.Event<unknown>, check: () => T | undefined, ms: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const now = check();
    if (now !== undefined) return resolve(now);
    const timer = setTimeout(() => {
      listener.dispose();
      reject(new Error(`timed out waiting for ${what}`));
    }, ms);
    const listener = event(() => {
      const value = check();
      if (value === undefined) return;
      clearTimeout(timer);
      listener.dispose();
      resolve(value);
    });
  });
}

describe('token inspection where people debug: hover, debugger, history, compare', function () {
  this.timeout(90_000);
  let token = '';
  let jti = '';

  before(async () => {
    const started = await run('mobilityApi.startSandbox');
    assert.equal(started.ok, true, started.message);
    const generated = await run('mobilityApi.generateToken', { environmentId: 'sandbox-mds-staging' });
    assert.equal(generated.ok, true, generated.message);
    jti = (generated.claims as { jti: string }).jti;
    token = await vscode.env.clipboard.readText();
    assert.equal(token.split('.').length, 3);
  });

  after(async () => {
    await vscode.debug.stopDebugging();
    await run('mobilityApi.stopSandbox');
  });

  it('hovering a token in an .http-style request shows the decoded token, verified, with a link that opens the decoded view', async () => {
    const text = `GET http://127.0.0.1/vehicles\nAuthorization: Bearer ${token}\nContent-Type: application/json\n`;
    const document = await vscode.workspace.openTextDocument({ content: text, language: 'plaintext' });
    const hover = await jwtHoverAt(document.uri, new vscode.Position(1, 'Authorization: Bearer '.length + 20));
    assert.ok(hover, 'a JWT hover is shown');
    const md = hover.markdown.value;
    assert.match(md, /Signature: verified with the stored credential whose kid matches/);
    assert.match(md, /Expires \(exp\): .*\(expires in [45] min\)/);
    assert.match(md, new RegExp(`"jti": "${jti}"`));
    assert.ok(!md.includes(token), 'the hover markdown never holds the token');
    assert.deepEqual(hover.markdown.isTrusted, { enabledCommands: ['mobilityApi.openDecodedToken'] });
    assert.equal(hover.markdown.supportHtml, false);
    assert.equal(hover.range?.start.character, 'Authorization: Bearer '.length);
    assert.equal(hover.range?.end.character, 'Authorization: Bearer '.length + token.length);

    const opened = await run('mobilityApi.openDecodedToken', linkArgument(md));
    assert.equal(opened.ok, true, opened.message);
    assert.equal((opened.payload as { jti: string }).jti, jti);
    assert.equal(opened.signature, 'verified');
    assert.match(String(opened.source), /line 2/);
  });

  it('hovers in JSON, .env text and a long log, and not beside a token', async () => {
    const json = await vscode.workspace.openTextDocument({
      content: JSON.stringify({ headers: { authorization: `Bearer ${token}` } }, null, 2),
      language: 'json',
    });
    const line = json.lineAt(2).text;
    assert.ok(await jwtHoverAt(json.uri, new vscode.Position(2, line.indexOf('eyJ') + 3)), 'hover in JSON');
    assert.equal(await jwtHoverAt(json.uri, new vscode.Position(0, 0)), undefined, 'no hover on "{"');

    const env = await vscode.workspace.openTextDocument({
      content: `# local\nMDS_TOKEN="${token}"\n`,
      language: 'properties',
    });
    assert.ok(await jwtHoverAt(env.uri, new vscode.Position(1, 15)), 'hover in .env text');
    assert.equal(await jwtHoverAt(env.uri, new vscode.Position(0, 3)), undefined, 'no hover on the comment');

    // A 20,000-line log with the token on its last line: only the hovered line is read.
    const filler = Array.from(
      { length: 20_000 },
      (_, i) => `2025-06-01T12:00:${String(i % 60).padStart(2, '0')}Z INFO request ${i} ok`,
    ).join('\n');
    const log = await vscode.workspace.openTextDocument({
      content: `${filler}\n2025-06-01T12:01:00Z DEBUG token=${token} status=401`,
      language: 'log',
    });
    const last = log.lineCount - 1;
    const hover = await jwtHoverAt(log.uri, new vscode.Position(last, log.lineAt(last).text.indexOf('eyJ') + 40));
    assert.ok(hover, 'hover on the last line of a long log');
  });

  it('the hover says what is wrong with an expired, unsigned token', async () => {
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const bad = `${b64({ alg: 'none' })}.${b64({ iss: 'x', aud: 'https://wrong.example', iat: now - 600, exp: now - 180 })}.`;
    const document = await vscode.workspace.openTextDocument({ content: `token = '${bad}'`, language: 'plaintext' });
    const hover = await jwtHoverAt(document.uri, new vscode.Position(0, 12));
    assert.ok(hover);
    assert.match(hover.markdown.value, /Expires \(exp\): .*\(expired 3 min ago\)/);
    assert.match(hover.markdown.value, /Error: .*\(spec 5\\\.1 rule 5, expired\)/);
    assert.match(hover.markdown.value, /alg\\-none/);
    assert.match(hover.markdown.value, /Signature: none \(the token is unsigned\)/);
  });

  it('Decode JWT in the Variables and Watch views decodes a variable of a Node program paused at a breakpoint', async () => {
    // An unsaved editor left by another test would make the debug session ask where to save it first.
    await closeUnsavedUntitled();
    const folder = vscode.workspace.workspaceFolders?.[0];
    const program = path.resolve(__dirname, '..', '..', '..', 'test', 'integration', 'fixtures', 'holdsToken.js');
    const started = await vscode.debug.startDebugging(folder, {
      type: 'node',
      request: 'launch',
      name: 'holds a token',
      program,
      runtimeExecutable: process.execPath,
      env: { MOBILITY_TEST_TOKEN: token },
      console: 'internalConsole',
      skipFiles: ['<node_internals>/**'],
    });
    assert.equal(started, true, 'the debug session starts');
    const frame = await waitFor(
      vscode.debug.onDidChangeActiveStackItem,
      () => {
        const item = vscode.debug.activeStackItem;
        return item instanceof vscode.DebugStackFrame ? item : undefined;
      },
      60_000,
      'the program to stop at its debugger statement',
    );
    const session = frame.session;

    // What the Variables view shows: the adapter's own scopes and variables.
    type Variable = { name: string; value: string; evaluateName?: string; variablesReference: number };
    const { scopes } = (await session.customRequest('scopes', { frameId: frame.frameId })) as {
      scopes: Array<{ name: string; variablesReference: number }>;
    };
    const local = scopes.find((s) => /local/i.test(s.name)) ?? scopes[0];
    const { variables } = (await session.customRequest('variables', {
      variablesReference: local.variablesReference,
    })) as { variables: Variable[] };
    const variable = (name: string): Variable => {
      const v = variables.find((x) => x.name === name);
      assert.ok(v, `the adapter lists ${name}: ${variables.map((x) => x.name).join(', ')}`);
      return v;
    };
    assert.match(variable('token').value, /^['"]eyJ/, 'the adapter shows the string quoted');

    const decoded = await run('mobilityApi.decodeDebugVariable', {
      sessionId: session.id,
      container: local,
      variable: variable('token'),
    });
    assert.equal(decoded.ok, true, decoded.message);
    assert.equal((decoded.payload as { jti: string }).jti, jti);
    assert.equal(decoded.signature, 'verified');
    assert.equal(decoded.source, 'Debug variable token');

    // A JSON string with the token inside, escaped: found inside.
    const logged = await run('mobilityApi.decodeDebugVariable', {
      sessionId: session.id,
      container: local,
      variable: variable('logged'),
    });
    assert.equal(logged.ok, true, logged.message);
    assert.equal(logged.foundInside, true);

    // A variable without a token: a clear refusal, not an exception.
    const greeting = await run('mobilityApi.decodeDebugVariable', {
      sessionId: session.id,
      container: local,
      variable: variable('greeting'),
    });
    assert.equal(greeting.ok, false);
    assert.match(String(greeting.message), /"greeting" does not hold a JWT/);

    // The Watch view's shape, with a value the adapter shortened: the whole value is evaluated.
    const watched = await run('mobilityApi.decodeDebugVariable', {
      sessionId: session.id,
      variable: {
        name: 'headers.authorization',
        value: `'Bearer ${token.slice(0, 40)}…`,
        evaluateName: 'headers.authorization',
        variablesReference: 0,
      },
    });
    assert.equal(watched.ok, true, watched.message);
    assert.equal((watched.payload as { jti: string }).jti, jti);

    await vscode.debug.stopDebugging(session);
  });

  it("keeps the session's tokens per environment (jti, times, request, no text), and opens and compares them", async () => {
    const listed = await run('mobilityApi.listVehicles', { environmentId: 'sandbox-mds-staging' });
    assert.equal(listed.ok, true, listed.message);
    const history = exportsOf().tokenHistory();
    const generated = history.find((e) => e.jti === jti);
    assert.ok(generated, 'the generated token is listed');
    assert.equal(generated.use, 'generated');
    assert.equal(generated.environmentId, 'sandbox-mds-staging');
    const sent = history.find((e) => e.use === 'request' && e.environmentId === 'sandbox-mds-staging');
    assert.ok(sent, 'the token of the request is listed');
    assert.equal(sent.request?.status, 200);
    assert.match(sent.request?.url ?? '', /\/vehicles/);
    assert.ok(sent.exp - sent.iat >= 60);
    assert.ok(!JSON.stringify(history).includes(token), 'the history describes tokens without their text');

    const opened = await run('mobilityApi.openDecodedToken', { historyId: sent.id });
    assert.equal(opened.ok, true, opened.message);
    // A listing loads every page, each with its own token: the newest is the last page's.
    assert.match(String(opened.source), /Sent with GET .*\/vehicles(\?page=\d+)? → 200/);

    // As the tree passes them with two items selected: (clicked, selection).
    const a = { kind: 'historyToken', environmentId: 'sandbox-mds-staging', entryId: generated.id };
    const b = { kind: 'historyToken', environmentId: 'sandbox-mds-staging', entryId: sent.id };
    const compared = await run('mobilityApi.compareTokens', a, [a, b]);
    assert.equal(compared.ok, true, compared.message);
    const differing = compared.differing as string[];
    for (const claim of ['iat', 'exp', 'jti'])
      assert.ok(differing.includes(claim), `${claim} differs: ${differing.join(', ')}`);
    assert.ok(!differing.includes('aud') && !differing.includes('iss'), 'same audience and issuer');

    const gone = await run('mobilityApi.openDecodedToken', { historyId: 'no-such-entry' });
    assert.equal(gone.ok, false);
    assert.match(String(gone.message), /no longer held/);

    assert.equal((await run('mobilityApi.clearTokenHistory')).ok, true);
    assert.deepEqual(exportsOf().tokenHistory(), [], 'Clear Token History forgets every token');
    const cleared = await run('mobilityApi.openDecodedToken', { historyId: sent.id });
    assert.equal(cleared.ok, false, 'a cleared token can no longer be opened');
  });
});
