import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { keyFixture } from '../unit/keyFixtures';
import { NO_DOMAINS } from '../../src/core/auth/credential';
import { CredentialStore } from '../../src/vscode/environments/credentialStore';

/** A SecretStorage whose keyring is missing, as on a Linux desktop without GNOME Keyring or KWallet. */
function brokenSecretStorage(failOn: 'store' | 'get'): vscode.SecretStorage {
  const changed = new vscode.EventEmitter<vscode.SecretStorageChangeEvent>();
  const values = new Map<string, string>();
  const fail = () => Promise.reject(new Error('Cannot create an item in a locked collection'));
  return {
    get: (key: string) => (failOn === 'get' ? fail() : Promise.resolve(values.get(key))),
    store: (key: string, value: string) => (failOn === 'store' ? fail() : (values.set(key, value), Promise.resolve())),
    delete: (key: string) => (values.delete(key), Promise.resolve()),
    keys: () => Promise.resolve([...values.keys()]),
    onDidChange: changed.event,
  } as vscode.SecretStorage;
}

describe('when VS Code has no usable secret storage', () => {
  const input = {
    kind: 'ec' as const,
    type: 'external-org' as const,
    privateKey: keyFixture('p256').pkcs8,
    kid: 'k1',
    issuer: 'org@org.test.invalid',
  };

  it('says plainly that no keyring is running and what to do, and stores nothing elsewhere', async () => {
    const store = new CredentialStore(brokenSecretStorage('store'), () => NO_DOMAINS);
    await assert.rejects(store.add(input, 'mine'), (e: unknown) => {
      const err = e as { code?: string; message: string };
      return (
        err.code === 'SECRET_STORAGE_FAILED' &&
        /keyring/.test(err.message) &&
        /--password-store=basic/.test(err.message) &&
        !err.message.includes('PRIVATE KEY')
      );
    });
    store.dispose();
  });

  it('says so when reading fails too', async () => {
    const store = new CredentialStore(brokenSecretStorage('get'), () => NO_DOMAINS);
    await assert.rejects(
      store.boundTo('mds-staging'),
      (e: unknown) => (e as { code?: string }).code === 'SECRET_STORAGE_FAILED',
    );
    store.dispose();
  });
});
