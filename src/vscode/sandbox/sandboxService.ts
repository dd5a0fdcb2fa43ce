import * as vscode from 'vscode';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ClientReport, RunningSandbox, SandboxEnvironment } from '../../sandbox/sandboxServer';
import type { CredentialStore } from '../environments/credentialStore';
import { EnvironmentRegistry } from '../environments/environmentRegistry';
import { Disposable } from '../platform/lifecycle';
import type { Logger } from '../platform/logger';
import type { Settings } from '../platform/settings';

const DEMO_KEY_SECRET = 'mobilityApi.sandbox.demoKey';

type SandboxModule = typeof import('../../sandbox/sandboxServer');

/**
 * The sandbox server is its own bundle (`dist/sandbox.js`, see esbuild.js), loaded the first time it
 * starts: most sessions never start it, and activation then has less code to load.
 */
function loadSandboxModule(): SandboxModule {
  // A computed path, so that esbuild leaves this require to run time (an import() would load it as ESM).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(path.join(__dirname, 'sandbox.js')) as SandboxModule;
}

/**
 * Runs the local sandbox provider inside the extension host. Its demo key lives in SecretStorage
 * (so the stored demo credential stays valid across restarts); the sandbox also trusts every
 * stored credential, so users can try their own keys against it.
 */
export class SandboxService extends Disposable {
  private running: RunningSandbox | undefined;
  private starting: Promise<RunningSandbox> | undefined;
  private closing: Promise<void> | undefined;
  private faults: 'all' | undefined;
  private readonly changed = this.register(new vscode.EventEmitter<boolean>());
  readonly onDidChange = this.changed.event;
  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly credentials: CredentialStore,
    private readonly environments: EnvironmentRegistry,
    private readonly settings: Settings,
    private readonly log: Logger,
  ) {
    super();
    this.register(credentials.onDidChange(() => void this.trustStoredCredentials()));
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  get url(): string | undefined {
    return this.running?.url;
  }

  /**
   * Writes the demo credential's private key (mode 0600) and its key id into `folder`, for a program copied as code to
   * run against this sandbox (MOBILITY_API_KEY_FILE, MOBILITY_API_KEY_ID). The demo key is the local sandbox's own,
   * trusted by nothing else, as the CLI's `sandbox` writes it too. Undefined when the sandbox is not running.
   */
  async writeDemoKeyFiles(folder: string): Promise<{ keyFile: string; keyIdFile: string } | undefined> {
    const pem = await this.secrets.get(DEMO_KEY_SECRET);
    if (!this.running || !pem) return undefined;
    await fs.promises.mkdir(folder, { recursive: true, mode: 0o700 });
    const keyFile = path.join(folder, 'sandbox-demo-key.pem');
    const keyIdFile = path.join(folder, 'sandbox-demo-key-id.txt');
    for (const [file, text] of [
      [keyFile, pem],
      [keyIdFile, `${this.running.demo.kid}\n`],
    ] as const) {
      await fs.promises.writeFile(file, text, { mode: 0o600 });
      // A file left from before keeps its mode on write.
      await fs.promises.chmod(file, 0o600);
    }
    return { keyFile, keyIdFile };
  }

  /**
   * The report card of the clients that talked to the running sandbox (it always grades them), with
   * its text; undefined when the sandbox is not running.
   */
  clientReport(): { report: ClientReport; text: string } | undefined {
    const report = this.running?.clientReport();
    return report ? { report, text: loadSandboxModule().clientReportText(report) } : undefined;
  }

  /** The running sandbox's environments, each with its REST `baseUrl` and its gRPC `grpcTarget` (`host:port`). */
  get environmentsServed(): readonly SandboxEnvironment[] {
    return this.running?.environments ?? [];
  }

  /** The data faults of the running sandbox's world (`all`), or undefined: a clean world, or not running. */
  get dataFaults(): 'all' | undefined {
    return this.running ? this.faults : undefined;
  }

  /**
   * Starts (or returns the running) sandbox and makes sure its demo credential is stored and bound. `dataFaults: 'all'`
   * puts faults of every rule of Analyze Harvest in its world (the CLI's `sandbox --data-faults all`): a sandbox running
   * without them is started again with them. Without the option, the running sandbox is returned as it is.
   */
  async start(options: { dataFaults?: 'all' } = {}): Promise<RunningSandbox> {
    if (this.starting) await this.starting.catch(() => undefined);
    if (this.running && options.dataFaults && this.faults !== options.dataFaults) await this.stop();
    if (this.running) return this.running;
    this.starting ??= this.doStart(options.dataFaults).finally(() => (this.starting = undefined));
    return this.starting;
  }

  async stop(): Promise<boolean> {
    const sandbox = this.running;
    if (!sandbox) return false;
    this.running = undefined;
    this.closing = sandbox.close();
    await this.closing;
    this.environments.setSandbox(undefined);
    this.log.info('sandbox', 'stopped');
    this.changed.fire(false);
    void vscode.commands.executeCommand('setContext', 'mobilityApi.sandboxRunning', false);
    return true;
  }

  /** Stops the sandbox and releases the listeners; `deactivate()` returns this so that VS Code waits for the server to close. */
  async shutdown(): Promise<void> {
    super.dispose();
    await this.stop();
    // A second caller (dispose after deactivate) still waits for the close the first one began.
    await this.closing;
  }

  override dispose(): void {
    void this.shutdown();
  }

  private async doStart(dataFaults: 'all' | undefined): Promise<RunningSandbox> {
    // The demo key lives in SecretStorage only: the sandbox writes no key file for the extension.
    let demoKeyPem = await this.secrets.get(DEMO_KEY_SECRET);
    if (!demoKeyPem) {
      demoKeyPem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
        type: 'pkcs8',
        format: 'pem',
      }) as string;
      await this.secrets.store(DEMO_KEY_SECRET, demoKeyPem);
    }
    const sandbox = await loadSandboxModule().startSandbox({
      demoDir: false,
      port: this.settings.sandboxPort,
      fleetSize: this.settings.sandboxFleetSize,
      pageSize: this.settings.sandboxPageSize,
      demoPrivateKeyPem: demoKeyPem,
      ...(dataFaults ? { dataFaults } : {}),
      // Cheap (counts and one example per rule): Sandbox: Client Report shows it.
      grade: true,
      onRequest: (entry) => {
        if (entry.status >= 400)
          this.log.warn(
            'sandbox',
            `${entry.method} ${entry.path} → ${entry.status}${entry.rule ? ` (rule ${entry.rule})` : ''}${entry.description ? `: ${entry.description}` : ''}`,
          );
      },
      // gRPC runs next to REST, each environment on a free port of its own (grpcTarget).
      onGrpcCall: (entry) => {
        if (entry.status !== 'OK' && entry.status !== 'CANCELLED')
          this.log.warn(
            'sandbox',
            `gRPC ${entry.environment} ${entry.method} → ${entry.status}${entry.rule ? ` (rule ${entry.rule})` : ''}${entry.description ? `: ${entry.description}` : ''}`,
          );
      },
    });
    this.running = sandbox;
    this.faults = dataFaults;
    try {
      this.environments.setSandbox(sandbox.environments);
      await this.ensureDemoCredential(demoKeyPem);
      await this.trustStoredCredentials();
    } catch (err) {
      await this.stop();
      throw err;
    }
    this.log.info(
      'sandbox',
      `listening on ${sandbox.url}${dataFaults ? ' with data faults of every rule' : ''}; gRPC ${sandbox.environments.map((e) => `${e.id} ${e.grpcTarget ?? '-'}`).join(', ')}`,
    );
    this.changed.fire(true);
    void vscode.commands.executeCommand('setContext', 'mobilityApi.sandboxRunning', true);
    return sandbox;
  }

  private async ensureDemoCredential(pem: string): Promise<void> {
    const sandbox = this.running!;
    const ids = sandbox.environments.map((e) => EnvironmentRegistry.sandboxId(e.id));
    const existing = (await this.credentials.list()).find((c) => c.demo && c.kid === sandbox.demo.kid);
    if (existing) {
      // Keep the user's own bindings of sandbox environments; bind the unbound ones to the demo.
      const bound = await Promise.all(ids.map(async (id) => ((await this.credentials.boundTo(id)) ? undefined : id)));
      const free = bound.filter((id): id is string => id !== undefined);
      if (free.length) await this.credentials.bind(existing.id, [...existing.environments, ...free]);
      return;
    }
    await this.credentials.add(
      { kind: 'ec', type: 'external-org', privateKey: pem, kid: sandbox.demo.kid, issuer: sandbox.demo.issuer },
      vscode.l10n.t('Sandbox demo credential'),
      { demo: true, environments: ids },
    );
  }

  /**
   * Lets the sandbox accept tokens of every stored credential, not only the demo's, and stops
   * trusting the keys of credentials that were removed.
   */
  private async trustStoredCredentials(): Promise<void> {
    const sandbox = this.running;
    if (!sandbox) return;
    const stored = new Set<string>([sandbox.demo.kid]);
    for (const info of await this.credentials.list()) {
      if (info.demo) continue;
      try {
        const credential = await this.credentials.credential(info.id);
        sandbox.trust({
          kid: credential.kid,
          iss: credential.issuer,
          type: credential.type,
          publicKey: credential.publicKey,
        });
        stored.add(credential.kid);
      } catch (err) {
        this.log.error('sandbox', err);
      }
    }
    for (const kid of sandbox.trustedKids()) if (!stored.has(kid)) sandbox.untrust(kid);
  }
}
