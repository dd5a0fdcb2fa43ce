import * as vscode from 'vscode';
import { randomUUID } from 'node:crypto';
import type { Credential, CredentialInput, CredentialType, IssuerDomains } from '../../core/auth';
import { errorMessage, maskKeyId, MobilityError } from '../../core/base';
import { parseCredential } from '../../core/auth';
import { Disposable } from '../platform/lifecycle';

/** What the tree and pickers show of a stored credential: never key material. */
export interface StoredCredentialInfo {
  id: string;
  label: string;
  type: CredentialType;
  kid: string;
  issuer: string;
  /** Environment ids this credential is bound to. */
  environments: string[];
  /** True for the local sandbox's demo credential. */
  demo?: boolean;
}

const INDEX_KEY = 'mobilityApi.credentials';
/** Environments the user left without a credential (Remove Credential's "Leave without a credential"). */
const LEFT_UNBOUND_KEY = 'mobilityApi.credentials.leftUnbound';
const SECRET_PREFIX = 'mobilityApi.credential.';

/**
 * Credentials in VS Code's SecretStorage only: the index (labels, kids, bindings) and each
 * credential's input (key text) under constant keys. Parsed keys are cached in memory per
 * credential and dropped whenever the secrets change (also from another window).
 */
export class CredentialStore extends Disposable {
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.changed.event;
  private readonly parsed = new Map<string, Credential>();
  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly domains: () => IssuerDomains,
  ) {
    super();
    this.register(
      secrets.onDidChange((e) => {
        if (e.key === INDEX_KEY || e.key === LEFT_UNBOUND_KEY || e.key.startsWith(SECRET_PREFIX)) {
          this.parsed.clear();
          this.changed.fire();
        }
      }),
    );
  }

  async list(): Promise<StoredCredentialInfo[]> {
    const text = await this.get(INDEX_KEY);
    if (!text) return [];
    try {
      const list = JSON.parse(text) as StoredCredentialInfo[];
      return Array.isArray(list) ? list.filter((c) => c && typeof c.id === 'string') : [];
    } catch {
      return [];
    }
  }

  /**
   * Validates with the core, then stores. Nothing is written when validation fails, so a refused
   * key leaves no trace. Returns the stored info and the core's warnings.
   */
  async add(
    input: CredentialInput,
    label: string,
    options: { demo?: boolean; environments?: string[] } = {},
  ): Promise<{ info: StoredCredentialInfo; warnings: string[] }> {
    const { credential, warnings } = parseCredential(input, { domains: this.domains() });
    const list = await this.list();
    const info: StoredCredentialInfo = {
      id: randomUUID(),
      label: label.trim() || vscode.l10n.t('Key {0}', maskKeyId(credential.kid)),
      type: credential.type,
      kid: credential.kid,
      issuer: credential.issuer,
      environments: options.environments ?? [],
      ...(options.demo ? { demo: true } : {}),
    };
    await this.put(SECRET_PREFIX + info.id, JSON.stringify(input));
    // An environment has one credential: binding the new one unbinds the previous.
    const others = list.map((c) => ({
      ...c,
      environments: c.environments.filter((e) => !info.environments.includes(e)),
    }));
    await this.put(INDEX_KEY, JSON.stringify([...others, info]));
    await this.clearLeftUnbound(info.environments);
    this.parsed.set(info.id, credential);
    this.changed.fire();
    return { info, warnings };
  }

  /** Removes the secret and the index entry. */
  async remove(id: string): Promise<StoredCredentialInfo | undefined> {
    const list = await this.list();
    const info = list.find((c) => c.id === id);
    if (!info) return undefined;
    await this.put(INDEX_KEY, JSON.stringify(list.filter((c) => c.id !== id)));
    await this.wrap(() => this.secrets.delete(SECRET_PREFIX + id));
    this.parsed.delete(id);
    this.changed.fire();
    return info;
  }

  async rename(id: string, label: string): Promise<void> {
    await this.updateInfo(id, (c) => ({ ...c, label: label.trim() || c.label }));
  }

  /** Binds to exactly these environments (an environment has at most one credential). */
  async bind(id: string, environmentIds: string[]): Promise<void> {
    const list = await this.list();
    const next = list.map((c) =>
      c.id === id
        ? { ...c, environments: [...new Set(environmentIds)] }
        : { ...c, environments: c.environments.filter((e) => !environmentIds.includes(e)) },
    );
    await this.put(INDEX_KEY, JSON.stringify(next));
    await this.clearLeftUnbound(environmentIds);
    this.changed.fire();
  }

  /**
   * Records that the user left these environments without a credential: no stored credential signs for them until
   * the user picks or binds one, not even the only one there is. Binding one to them (`add`, `bind`) clears it.
   */
  async leaveUnbound(environmentIds: string[]): Promise<void> {
    const left = await this.leftUnbound();
    await this.put(LEFT_UNBOUND_KEY, JSON.stringify([...new Set([...left, ...environmentIds])]));
  }

  /** Whether the user left this environment without a credential (see `leaveUnbound`). */
  async isLeftUnbound(environmentId: string): Promise<boolean> {
    return (await this.leftUnbound()).includes(environmentId);
  }

  private async leftUnbound(): Promise<string[]> {
    try {
      const list = JSON.parse((await this.get(LEFT_UNBOUND_KEY)) ?? '[]') as unknown;
      return Array.isArray(list) ? list.filter((id): id is string => typeof id === 'string') : [];
    } catch {
      return [];
    }
  }

  private async clearLeftUnbound(environmentIds: readonly string[]): Promise<void> {
    const left = await this.leftUnbound();
    if (left.some((id) => environmentIds.includes(id)))
      await this.put(LEFT_UNBOUND_KEY, JSON.stringify(left.filter((id) => !environmentIds.includes(id))));
  }

  async boundTo(environmentId: string): Promise<StoredCredentialInfo | undefined> {
    return (await this.list()).find((c) => c.environments.includes(environmentId));
  }

  /** The parsed credential, from the memory cache or parsed anew from SecretStorage. */
  async credential(id: string): Promise<Credential> {
    const cached = this.parsed.get(id);
    if (cached) return cached;
    const text = await this.get(SECRET_PREFIX + id);
    if (!text)
      throw new MobilityError(
        'CREDENTIAL_TYPE_UNKNOWN',
        'This credential is no longer stored (it was removed, perhaps in another window). Add it again.',
      );
    const { credential } = parseCredential(JSON.parse(text) as CredentialInput, { domains: this.domains() });
    this.parsed.set(id, credential);
    return credential;
  }

  private async updateInfo(id: string, change: (c: StoredCredentialInfo) => StoredCredentialInfo): Promise<void> {
    const list = await this.list();
    await this.put(INDEX_KEY, JSON.stringify(list.map((c) => (c.id === id ? change(c) : c))));
    this.changed.fire();
  }

  private get(key: string): Promise<string | undefined> {
    return this.wrap(() => this.secrets.get(key));
  }

  private put(key: string, value: string): Promise<void> {
    return this.wrap(() => this.secrets.store(key, value));
  }

  private async wrap<T>(action: () => Thenable<T>): Promise<T> {
    try {
      return await action();
    } catch (err) {
      throw new MobilityError(
        'SECRET_STORAGE_FAILED',
        vscode.l10n.t(
          'VS Code could not use its secret storage ({0}). On Linux this usually means no keyring is running: install and unlock GNOME Keyring or KWallet, or start VS Code with --password-store=basic.',
          errorMessage(err),
        ),
        { cause: err },
      );
    }
  }
}
