import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { distinctKeyPem, keyFixture } from '../unit/keyFixtures';
import { exportsOf, run } from './extensionApi';
import { waitFor } from '../unit/support/waitUntil';

/** Every file under a folder, as text (binary files too: a secret must not appear in any byte form we can read). */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .map((f) => path.join(dir, f))
    .filter((f) => fs.statSync(f).isFile());
}

describe('the extension shell against the local sandbox', function () {
  this.timeout(60_000);
  const secrets: string[] = [];
  const ec = keyFixture('p256');
  const ecPem = ec.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  secrets.push(ecPem.split('\n')[1], (ec.privateKey.export({ format: 'jwk' }) as { d: string }).d);
  let ownCredentialId = '';
  let sandboxUrl = '';

  /** A token signed here with the test's own key, sent straight to the sandbox. */
  async function statusWithOwnKey(): Promise<number> {
    const { SignJWT } = await import('jose');
    const aud = `${sandboxUrl}/mds-production`;
    const now = Date.now() / 1000;
    const token = await new SignJWT({
      iss: 'org-7@org.test.invalid',
      aud,
      iat: now,
      exp: Math.floor(now) + 300,
      jti: crypto.randomUUID(),
    })
      .setProtectedHeader({ alg: 'ES256', kid: 'own-kid-1' })
      .sign(ec.privateKey);
    secrets.push(token);
    const res = await fetch(`${aud}/vehicles`, { headers: { Authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    return res.status;
  }

  before(async () => {
    await run('mobilityApi.showLog');
  });

  after(async () => {
    await run('mobilityApi.stopSandbox');
  });

  it('Start Local Sandbox serves three environments with the demo credential bound', async () => {
    const started = await run('mobilityApi.startSandbox');
    assert.equal(started.ok, true, started.message);
    sandboxUrl = String(started.url);
    assert.deepEqual(started.environmentIds, ['sandbox-mds-staging', 'sandbox-mds-production', 'sandbox-maas-staging']);
    const demo = (await exportsOf().listCredentials()).find((c) => c.demo);
    assert.ok(demo, 'the demo credential is stored');
    assert.deepEqual([...demo.environments].sort(), [
      'sandbox-maas-staging',
      'sandbox-mds-production',
      'sandbox-mds-staging',
    ]);
    assert.equal(demo.type, 'external-org');
  });

  it('List Vehicles and Vehicle Status get 200 with a fresh token, page by page, to the last page', async () => {
    const listed = await run('mobilityApi.listVehicles', { environmentId: 'sandbox-mds-staging' });
    assert.equal(listed.ok, true, listed.message);
    assert.equal(listed.status, 200);
    assert.deepEqual(
      { items: listed.items, pages: listed.pages, nextUrl: listed.nextUrl },
      { items: 500, pages: 5, nextUrl: undefined },
      'the whole default fleet of 500 in pages of 100',
    );
    const status = await run('mobilityApi.vehicleStatus', { environmentId: 'sandbox-mds-production' });
    assert.equal(status.status, 200);
    const maas = await run('mobilityApi.listVehicles', { environmentId: 'sandbox-maas-staging' });
    assert.equal(maas.status, 200);
  });

  it('Vehicle Status refuses a MaaS environment', async () => {
    const refused = await run('mobilityApi.vehicleStatus', { environmentId: 'sandbox-maas-staging' });
    assert.equal(refused.ok, false);
    assert.match(String(refused.message), /MDS request/);
  });

  it('Generate Token copies a token with the spec claims, and Decode JWT verifies it against the stored credential', async () => {
    const generated = await run('mobilityApi.generateToken', { environmentId: 'sandbox-mds-staging' });
    assert.equal(generated.ok, true, generated.message);
    const claims = generated.claims as { aud: string; jti: string; iat: number; exp: number };
    assert.equal(claims.exp - claims.iat, 300);
    const token = await vscode.env.clipboard.readText();
    secrets.push(token);
    assert.equal(token.split('.').length, 3);
    const decoded = await run('mobilityApi.decodeJwt', token);
    assert.equal(decoded.ok, true, decoded.message);
    assert.equal((decoded.payload as { jti: string }).jti, claims.jti);
    assert.equal(decoded.signature, 'verified');
    assert.ok(
      !(decoded.findings as string[]).some((f) => ['aud-unknown', 'expired', 'alg-wrong-for-type'].includes(f)),
      String(decoded.findings),
    );
  });

  it('Decode JWT explains a string that is not a token', async () => {
    const r = await run('mobilityApi.decodeJwt', 'not.a-token');
    assert.equal(r.ok, false);
    assert.match(String(r.message), /not a JWT/);
  });

  it('Add Credential validates first: a refused key leaves nothing stored', async () => {
    const before = (await exportsOf().listCredentials()).length;
    const p384 = keyFixture('p384').pkcs8;
    const refused = await run('mobilityApi.addCredential', {
      type: 'external-org',
      privateKey: p384,
      kid: 'k-384',
      issuer: 'org@org.test.invalid',
    });
    assert.equal(refused.ok, false);
    assert.equal(refused.code, 'KEY_WRONG_CURVE');
    const noKid = await run('mobilityApi.addCredential', {
      type: 'external-org',
      privateKey: ecPem,
      kid: ' ',
      issuer: 'org@org.test.invalid',
    });
    assert.equal(noKid.code, 'KID_MISSING');
    assert.equal((await exportsOf().listCredentials()).length, before);
  });

  it('Add Credential stores a valid key, bound to an environment, and the sandbox accepts its tokens', async () => {
    const added = await run('mobilityApi.addCredential', {
      type: 'external-org',
      privateKey: ecPem,
      kid: 'own-kid-1',
      issuer: 'org-7@org.test.invalid',
      label: 'Mine',
      environments: ['sandbox-mds-staging'],
    });
    assert.equal(added.ok, true, added.message);
    assert.equal(added.kid, '…', "the command's outcome carries the kid masked (a key id is a secret, spec 5.7)");
    ownCredentialId = String(added.credentialId);
    const info = (await exportsOf().listCredentials()).find((c) => c.id === ownCredentialId);
    assert.deepEqual(
      { label: info?.label, kid: info?.kid, type: info?.type, envs: info?.environments },
      { label: 'Mine', kid: 'own-kid-1', type: 'external-org', envs: ['sandbox-mds-staging'] },
    );
    const generated = await run('mobilityApi.generateToken', { environmentId: 'sandbox-mds-staging' });
    assert.equal(generated.credentialId, ownCredentialId, 'the bound credential signs');
    secrets.push(await vscode.env.clipboard.readText());
    const listed = await run('mobilityApi.listVehicles', { environmentId: 'sandbox-mds-staging' });
    assert.equal(listed.status, 200, JSON.stringify(listed.error));
  });

  it('a MaaS environment refuses an IAM credential', async () => {
    const iamKey = distinctKeyPem('p256', 'traditional');
    const added = await run('mobilityApi.addCredential', {
      type: 'iam',
      privateKey: iamKey,
      kid: 'iam-kid',
      issuer: 'identity@iam.test.invalid',
      label: 'Old IAM',
    });
    assert.equal(added.ok, true, added.message);
    const bound = await run('mobilityApi.bindCredential', {
      credentialId: added.credentialId,
      environmentIds: ['sandbox-maas-staging'],
    });
    assert.equal(bound.ok, false);
    assert.equal(bound.code, 'CREDENTIAL_NOT_FOR_API');
    const removed = await run('mobilityApi.removeCredential', { credentialId: added.credentialId, confirmed: true });
    assert.equal(removed.ok, true);
  });

  it('Rename and Remove Credential', async () => {
    assert.equal(
      (await run('mobilityApi.renameCredential', { credentialId: ownCredentialId, label: 'Renamed' })).ok,
      true,
    );
    assert.equal((await exportsOf().listCredentials()).find((c) => c.id === ownCredentialId)?.label, 'Renamed');
    assert.equal(await statusWithOwnKey(), 200, 'the sandbox trusts a stored credential');
    assert.equal(
      (await run('mobilityApi.removeCredential', { credentialId: ownCredentialId, confirmed: true, rebindTo: false }))
        .ok,
      true,
    );
    assert.equal(
      (await exportsOf().listCredentials()).some((c) => c.id === ownCredentialId),
      false,
    );
    // The sandbox learns of the removal through SecretStorage's change event: ask until it answers 401 (or give up).
    let status = await statusWithOwnKey();
    for (const deadline = Date.now() + 10_000; status !== 401 && Date.now() < deadline;)
      status = await statusWithOwnKey();
    assert.equal(status, 401, 'and stops trusting it once it is removed');
  });

  it('an environment without a base URL says so', async () => {
    const r = await run('mobilityApi.generateToken', { environmentId: 'mds-staging' });
    assert.equal(r.ok, false);
    assert.equal(r.code, 'BASE_URL_MISSING');
    assert.match(String(r.message), /base URL/);
  });

  it('Copy Token puts a fresh token on the clipboard without opening anything', async () => {
    const before = await vscode.env.clipboard.readText();
    const copied = await run('mobilityApi.copyToken', { environmentId: 'sandbox-maas-staging' });
    assert.equal(copied.ok, true, copied.message);
    const token = await vscode.env.clipboard.readText();
    secrets.push(token);
    assert.notEqual(token, before);
    assert.equal(
      (copied.claims as { jti: string }).jti,
      (JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as { jti: string }).jti,
    );
  });

  it('Select Environment makes an environment active (also one without a base URL)', async () => {
    assert.equal((await run('mobilityApi.selectEnvironment', { environmentId: 'mds-production' })).ok, true);
    const selected = await run('mobilityApi.selectEnvironment', { environmentId: 'sandbox-mds-staging' });
    assert.deepEqual({ ok: selected.ok, id: selected.environmentId }, { ok: true, id: 'sandbox-mds-staging' });
  });

  it('Open Settings opens the base URL setting of a built-in environment', async () => {
    const opened = await run('mobilityApi.openSettings', { environmentId: 'maas-staging' });
    assert.deepEqual({ ok: opened.ok, query: opened.query }, { ok: true, query: 'mobilityApi.maas.stagingBaseUrl' });
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('Stop Local Sandbox removes its environments, and requests to it then say the environment is gone', async () => {
    const stopped = await run('mobilityApi.stopSandbox');
    assert.deepEqual({ ok: stopped.ok, stopped: stopped.stopped }, { ok: true, stopped: true });
    assert.ok(
      !exportsOf()
        .environmentIds()
        .some((id) => id.startsWith('sandbox-')),
    );
    const gone = await run('mobilityApi.listVehicles', { environmentId: 'sandbox-mds-staging' });
    assert.equal(gone.ok, false);
    assert.match(String(gone.message), /does not exist/);
    const restarted = await run('mobilityApi.startSandbox');
    assert.equal(restarted.ok, true, restarted.message);
    const demo = (await exportsOf().listCredentials()).filter((c) => c.demo);
    assert.equal(demo.length, 1, 'a restart reuses the stored demo credential instead of adding another');
    const listed = await run('mobilityApi.listVehicles', { environmentId: 'sandbox-mds-staging' });
    assert.equal(listed.status, 200, 'the reused demo key is trusted by the new sandbox');
  });

  it('after all that, no key or token text is in settings, globalState, logs or any file under the user data folder', async () => {
    // globalStorage is <user-data>/User/globalStorage/<extension id>
    const userData = path.resolve(exportsOf().globalStoragePath, '..', '..', '..');
    assert.ok(fs.existsSync(path.join(userData, 'User')), `user data folder found at ${userData}`);
    // VS Code writes logs and state in the background: once a line logged now is on disk and the folder
    // stops changing between two reads, everything the tests above did has been written.
    const copied = await run('mobilityApi.copyToken', { environmentId: 'sandbox-mds-staging' });
    assert.equal(copied.ok, true, copied.message);
    secrets.push(await vscode.env.clipboard.readText());
    const marker = `jti ${(copied.claims as { jti: string }).jti}`;
    await waitFor(
      `"${marker}" in a log file under ${userData}`,
      () => filesUnder(userData).some((f) => fs.readFileSync(f).includes(marker)),
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    let previous = '';
    await waitFor(
      `the files under ${userData} to stop changing`,
      () => {
        const now = JSON.stringify(filesUnder(userData).map((f) => [f, fs.statSync(f).size, fs.statSync(f).mtimeMs]));
        const quiet = now === previous;
        previous = now;
        return quiet;
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    const files = filesUnder(userData);
    assert.ok(files.length > 5, 'there are files to scan');
    const leaks: string[] = [];
    for (const file of files) {
      const bytes = fs.readFileSync(file);
      for (const secret of secrets)
        if (secret && bytes.includes(secret))
          leaks.push(`${path.relative(userData, file)} holds ${secret.slice(0, 12)}…`);
    }
    assert.deepEqual(leaks, []);
  });
});
