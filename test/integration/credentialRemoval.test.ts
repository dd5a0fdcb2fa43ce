import assert from 'node:assert/strict';
import { distinctKeyPem } from '../unit/keyFixtures';
import { answerUntilReturned, exportsOf, run as runCommand } from './extensionApi';
import type { Outcome as BaseOutcome } from './extensionApi';

type Outcome = BaseOutcome & {
  credentialId?: string;
  rebound?: Array<{ environmentId: string; credentialId: string }>;
  unbound?: string[];
};
const run = (command: string, ...args: unknown[]) => runCommand<Outcome>(command, ...args);
const ecKey = (format: 'pkcs8' | 'sec1' = 'pkcs8') =>
  distinctKeyPem('p256', format === 'sec1' ? 'traditional' : 'pkcs8');

async function boundTo(environmentId: string): Promise<string | undefined> {
  return (await exportsOf().listCredentials()).find((c) => c.environments.includes(environmentId))?.label;
}

/** Removing the credential an environment signs with never hands the environment to another key unasked, and says what it did. */
describe('removing a bound credential', function () {
  this.timeout(60_000);
  const added: string[] = [];
  const add = async (args: Record<string, unknown>): Promise<string> => {
    const r = await run('mobilityApi.addCredential', args);
    assert.equal(r.ok, true, r.message);
    added.push(String(r.credentialId));
    return String(r.credentialId);
  };

  before(async () => {
    const started = await run('mobilityApi.startSandbox');
    assert.equal(started.ok, true, started.message);
  });

  after(async () => {
    // Only those still stored: an unknown id would make Remove Credential ask which one to remove.
    const stored = new Set((await exportsOf().listCredentials()).map((c) => c.id));
    for (const id of added.filter((a) => stored.has(a)))
      await run('mobilityApi.removeCredential', { credentialId: id, confirmed: true, rebindTo: false });
    await run('mobilityApi.stopSandbox');
  });

  /** Removes `credentialId` as a user does (confirmed), answering the question that follows with `answer` until the command returns. */
  async function removeAnswering(
    credentialId: string,
    answer: 'workbench.action.acceptSelectedQuickOpenItem' | 'workbench.action.closeQuickOpen',
  ): Promise<Outcome> {
    return answerUntilReturned(
      run('mobilityApi.removeCredential', { credentialId, confirmed: true }),
      [answer],
      'Remove Credential',
    );
  }

  it('never binds the credential left (the sandbox demo) without asking: Enter on the question leaves the environment without one', async () => {
    const mine = await add({
      type: 'external-org',
      privateKey: ecKey(),
      kid: 'rm-kid-1',
      issuer: 'org-1@org.test.invalid',
      label: 'Mine',
      environments: ['sandbox-mds-staging'],
    });
    assert.equal(await boundTo('sandbox-mds-staging'), 'Mine');
    const removed = await removeAnswering(mine, 'workbench.action.acceptSelectedQuickOpenItem');
    assert.equal(removed.ok, true, removed.message);
    assert.equal(await boundTo('sandbox-mds-staging'), undefined, 'the demo key does not start signing for it');
    assert.deepEqual(removed.rebound, []);
    assert.match(String(removed.message), /^Removed "Mine"\. Sandbox · MDS staging has no credential bound now\.$/);
  });

  it('"Leave without a credential" holds: the only credential left does not sign the next request silently, it is asked for', async () => {
    const mine = await add({
      type: 'external-org',
      privateKey: ecKey(),
      kid: 'rm-kid-1d',
      issuer: 'org-1@org.test.invalid',
      label: 'Mine held',
      environments: ['sandbox-mds-staging'],
    });
    const removed = await removeAnswering(mine, 'workbench.action.acceptSelectedQuickOpenItem');
    assert.deepEqual(removed.unbound, ['sandbox-mds-staging']);
    const usable = (await exportsOf().listCredentials()).map((c) => c.label);
    assert.deepEqual(
      usable,
      ['Sandbox demo credential'],
      'one credential is stored: the one a silent choice would take',
    );
    // Closing the question the request asks ends it unsent; a silent signature would return ok.
    const listed = await answerUntilReturned(
      run('mobilityApi.listVehicles', { environmentId: 'sandbox-mds-staging' }),
      ['workbench.action.closeQuickOpen'],
      'List Vehicles',
    );
    assert.equal(
      listed.code,
      'CANCELLED',
      `the demo credential did not sign for it unasked (${String(listed.message)})`,
    );
    assert.equal(await boundTo('sandbox-mds-staging'), undefined);
    // Picking it answers for this request only: the environment stays without a credential.
    const picked = await answerUntilReturned(
      run('mobilityApi.listVehicles', { environmentId: 'sandbox-mds-staging' }),
      ['workbench.action.acceptSelectedQuickOpenItem'],
      'List Vehicles',
    );
    assert.equal(picked.ok, true, picked.message);
    assert.equal(await boundTo('sandbox-mds-staging'), undefined);
  });

  it('closing the question leaves it without a credential too', async () => {
    const mine = await add({
      type: 'external-org',
      privateKey: ecKey(),
      kid: 'rm-kid-1b',
      issuer: 'org-1@org.test.invalid',
      label: 'Mine too',
      environments: ['sandbox-mds-staging'],
    });
    const removed = await removeAnswering(mine, 'workbench.action.closeQuickOpen');
    assert.equal(removed.ok, true, removed.message);
    assert.deepEqual(removed.unbound, ['sandbox-mds-staging']);
    assert.equal(await boundTo('sandbox-mds-staging'), undefined);
  });

  it('the demo credential signs for it again only when the user picks it', async () => {
    const demo = (await exportsOf().listCredentials()).find((c) => c.label === 'Sandbox demo credential');
    assert.ok(demo, 'the sandbox stored its demo credential');
    const mine = await add({
      type: 'external-org',
      privateKey: ecKey(),
      kid: 'rm-kid-1c',
      issuer: 'org-1@org.test.invalid',
      label: 'Mine once',
      environments: ['sandbox-mds-staging'],
    });
    const removed = await run('mobilityApi.removeCredential', {
      credentialId: mine,
      confirmed: true,
      rebindTo: demo.id,
    });
    assert.equal(await boundTo('sandbox-mds-staging'), 'Sandbox demo credential');
    assert.match(
      String(removed.message),
      /^Removed "Mine once"\. "Sandbox demo credential" now signs for Sandbox · MDS staging\.$/,
    );
    const listed = await run('mobilityApi.listVehicles', { environmentId: 'sandbox-mds-staging' });
    assert.equal(listed.ok, true, 'and the next request needs no question');
  });

  it('for a MaaS environment only External Organization credentials are candidates', async () => {
    await add({
      type: 'iam',
      privateKey: ecKey('sec1'),
      kid: 'rm-iam',
      issuer: 'identity@iam.test.invalid',
      label: 'Old IAM',
    });
    const mine = await add({
      type: 'external-org',
      privateKey: ecKey(),
      kid: 'rm-kid-2',
      issuer: 'org-2@org.test.invalid',
      label: 'Mine for MaaS',
      environments: ['sandbox-maas-staging'],
    });
    const iam = (await exportsOf().listCredentials()).find((c) => c.label === 'Old IAM');
    const removed = await run('mobilityApi.removeCredential', {
      credentialId: mine,
      confirmed: true,
      rebindTo: iam?.id,
    });
    assert.equal(removed.ok, true, removed.message);
    assert.deepEqual(removed.unbound, ['sandbox-maas-staging'], 'the IAM credential is not offered for MaaS');
    assert.equal(await boundTo('sandbox-maas-staging'), undefined);
  });

  it("with several candidates, the chosen one is bound (rebindTo stands for the quick pick's answer)", async () => {
    const other = await add({
      type: 'external-org',
      privateKey: ecKey(),
      kid: 'rm-kid-3',
      issuer: 'org-3@org.test.invalid',
      label: 'Other',
    });
    const mine = await add({
      type: 'external-org',
      privateKey: ecKey(),
      kid: 'rm-kid-4',
      issuer: 'org-4@org.test.invalid',
      label: 'Mine again',
      environments: ['sandbox-mds-production'],
    });
    const removed = await run('mobilityApi.removeCredential', { credentialId: mine, confirmed: true, rebindTo: other });
    assert.deepEqual(removed.rebound, [{ environmentId: 'sandbox-mds-production', credentialId: other }]);
    assert.equal(await boundTo('sandbox-mds-production'), 'Other');
    assert.match(String(removed.message), /"Other" now signs for Sandbox · MDS production\./);
  });

  it('"leave unbound" leaves it unbound and says so', async () => {
    const mine = await add({
      type: 'external-org',
      privateKey: ecKey(),
      kid: 'rm-kid-5',
      issuer: 'org-5@org.test.invalid',
      label: 'Mine once more',
      environments: ['sandbox-mds-staging'],
    });
    const removed = await run('mobilityApi.removeCredential', { credentialId: mine, confirmed: true, rebindTo: false });
    assert.deepEqual(removed.unbound, ['sandbox-mds-staging']);
    assert.equal(await boundTo('sandbox-mds-staging'), undefined);
    assert.match(String(removed.message), /Sandbox · MDS staging has no credential bound now\./);
    // The sandbox binds its demo credential to its unbound environments when it starts again.
    await run('mobilityApi.stopSandbox');
    await run('mobilityApi.startSandbox');
    assert.equal(await boundTo('sandbox-mds-staging'), 'Sandbox demo credential');
  });
});
