import * as vscode from 'vscode';
import type { CredentialInput, CredentialType } from '../../core/auth';
import { CREDENTIAL_TYPE_LABELS, DEPRECATED_TYPES, parseCredential, parsePrivateKey } from '../../core/auth';
import { isMobilityError, maskKeyId, MobilityError } from '../../core/base';
import type { CommandDeps, CommandOutcome } from '../platform/commandDeps';
import { COMMANDS } from '../platform/commandIds';
import { Cancelled, registerCommand } from '../platform/registerCommand';

/** Programmatic form (scripts, tests): no prompts. Key text or a file path. */
export interface AddCredentialArgs {
  type: CredentialType;
  label?: string;
  privateKey?: string;
  privateKeyFile?: string;
  kid?: string;
  issuer?: string;
  keyFile?: string;
  keyFilePath?: string;
  environments?: string[];
}

/**
 * Add Credential: type, then the key (file or pasted into a password box), key id and issuer, or a
 * service-account key file. Each answer is checked by the core right away; a refused answer is
 * asked again, with the reason, without starting over. Nothing is stored until all is valid.
 */
export function registerAddCredential(deps: CommandDeps): vscode.Disposable {
  return registerCommand(deps, COMMANDS.addCredential, async (args?: AddCredentialArgs): Promise<CommandOutcome> => {
    const { input, label, environments } = args ? await fromArgs(args) : await ask(deps);
    const { info, warnings } = await deps.credentials.add(input, label, { environments });
    deps.log.info('credentials', `stored ${info.type} credential "${info.label}" (kid ${maskKeyId(info.kid)})`);
    for (const w of warnings) void vscode.window.showWarningMessage(w);
    const bound = environments.map((id) => deps.environments.get(id)?.name ?? id);
    void vscode.window.showInformationMessage(
      bound.length
        ? vscode.l10n.t(
            'Stored "{0}" ({1}, kid {2}) and bound it to {3}.',
            info.label,
            CREDENTIAL_TYPE_LABELS[info.type],
            maskKeyId(info.kid),
            bound.join(', '),
          )
        : vscode.l10n.t(
            'Stored "{0}" ({1}, kid {2}).',
            info.label,
            CREDENTIAL_TYPE_LABELS[info.type],
            maskKeyId(info.kid),
          ),
    );
    // The key id is a secret (spec 5.7): a caller gets it masked, as the notification shows it.
    return { ok: true, credentialId: info.id, type: info.type, kid: maskKeyId(info.kid), warnings };
  });
}

async function fromArgs(
  args: AddCredentialArgs,
): Promise<{ input: CredentialInput; label: string; environments: string[] }> {
  const read = async (file: string) =>
    new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.file(file)));
  let input: CredentialInput;
  if (args.type === 'service-account') {
    const keyFile = args.keyFile ?? (args.keyFilePath ? await read(args.keyFilePath) : undefined);
    if (!keyFile) throw new MobilityError('USAGE', 'A service-account credential needs keyFile or keyFilePath.');
    input = { kind: 'service-account', keyFile };
  } else {
    const privateKey = args.privateKey ?? (args.privateKeyFile ? await read(args.privateKeyFile) : undefined);
    input = {
      kind: 'ec',
      type: args.type,
      privateKey: privateKey ?? '',
      kid: args.kid ?? '',
      issuer: args.issuer ?? '',
    };
  }
  return { input, label: args.label ?? '', environments: args.environments ?? [] };
}

async function ask(deps: CommandDeps): Promise<{ input: CredentialInput; label: string; environments: string[] }> {
  const title = vscode.l10n.t('Add Credential');
  const typeItems: Array<vscode.QuickPickItem & { type: CredentialType }> = [
    {
      label: CREDENTIAL_TYPE_LABELS['external-org'],
      description: vscode.l10n.t('ES256 · current · MDS and MaaS'),
      type: 'external-org',
    },
    { label: CREDENTIAL_TYPE_LABELS.iam, description: vscode.l10n.t('ES256 · deprecated · MDS only'), type: 'iam' },
    {
      label: CREDENTIAL_TYPE_LABELS['service-account'],
      description: vscode.l10n.t('RS256 key file · deprecated · MDS only'),
      type: 'service-account',
    },
  ];
  const typePick = await vscode.window.showQuickPick(typeItems, {
    title,
    placeHolder: vscode.l10n.t('Which type of credential were you given?'),
    ignoreFocusOut: true,
  });
  if (!typePick) throw new Cancelled();
  const type = typePick.type;
  let input: CredentialInput;
  if (type === 'service-account') {
    const keyFile = await askUntilValid(
      () => askKeyText(title, vscode.l10n.t('the service-account key file (JSON)'), ['json']),
      (text) => {
        parseCredential({ kind: 'service-account', keyFile: text }, { domains: deps.settings.issuerDomains });
      },
    );
    input = { kind: 'service-account', keyFile };
  } else {
    const privateKey = await askUntilValid(
      () => askKeyText(title, vscode.l10n.t('the EC P-256 private key (PEM or JWK)'), ['pem', 'key', 'json', 'jwk']),
      (text) => {
        parsePrivateKey(text, 'ES256');
      },
    );
    const kid = await askText(title, vscode.l10n.t('Key id (kid) delivered with the credentials'), (v) =>
      v.trim() ? undefined : vscode.l10n.t('The key id is required: it goes into every token header as "kid".'),
    );
    // The issuer is checked with the whole credential, so a domain that contradicts the type is reported here.
    let issuer = '';
    for (;;) {
      issuer = await askText(
        title,
        vscode.l10n.t('Issuer e-mail delivered with the credentials (<organization-id>@<domain>)'),
        (v) =>
          /^[^@\s]+@[^@\s]+$/.test(v.trim())
            ? undefined
            : vscode.l10n.t('Enter an e-mail address such as organization-id@domain.'),
        issuer,
      );
      try {
        parseCredential({ kind: 'ec', type, privateKey, kid, issuer }, { domains: deps.settings.issuerDomains });
        break;
      } catch (err) {
        if (!isMobilityError(err)) throw err;
        await tryAgainOrCancel(err.message);
      }
    }
    input = { kind: 'ec', type, privateKey, kid: kid.trim(), issuer: issuer.trim() };
  }
  const label = await askText(
    title,
    vscode.l10n.t('A name for this credential (shown in the tree)'),
    () => undefined,
    CREDENTIAL_TYPE_LABELS[type].replace(/ \(deprecated\)/, ''),
  );
  const candidates = deps.environments.all().filter((e) => e.api === 'mds' || !DEPRECATED_TYPES.has(type));
  const bindPicks = await vscode.window.showQuickPick(
    candidates.map((e) => ({ label: e.name, description: e.baseUrl || vscode.l10n.t('no base URL set'), id: e.id })),
    {
      title,
      canPickMany: true,
      placeHolder: vscode.l10n.t('Bind it to which environments? (optional)'),
      ignoreFocusOut: true,
    },
  );
  return { input, label, environments: (bindPicks ?? []).map((p) => p.id) };
}

async function askKeyText(title: string, what: string, extensions: string[]): Promise<string> {
  const choice = await vscode.window.showQuickPick(
    [
      { label: vscode.l10n.t('$(file) Choose a file…'), id: 'file' },
      { label: vscode.l10n.t('$(clippy) Paste it'), id: 'paste' },
    ],
    { title, placeHolder: vscode.l10n.t('Where is {0}?', what), ignoreFocusOut: true },
  );
  if (!choice) throw new Cancelled();
  if (choice.id === 'file') {
    const uris = await vscode.window.showOpenDialog({
      canSelectMany: false,
      openLabel: vscode.l10n.t('Use this key'),
      filters: { [vscode.l10n.t('Keys')]: extensions, [vscode.l10n.t('All files')]: ['*'] },
    });
    if (!uris?.length) throw new Cancelled();
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uris[0]));
  }
  const pasted = await vscode.window.showInputBox({
    title,
    prompt: vscode.l10n.t("Paste {0}. It goes to VS Code's secret storage only.", what),
    password: true,
    ignoreFocusOut: true,
  });
  if (pasted === undefined) throw new Cancelled();
  return pasted;
}

async function askText(
  title: string,
  prompt: string,
  validate: (v: string) => string | undefined,
  value = '',
): Promise<string> {
  const text = await vscode.window.showInputBox({
    title,
    prompt,
    value,
    ignoreFocusOut: true,
    validateInput: validate,
  });
  if (text === undefined) throw new Cancelled();
  return text.trim();
}

/** Asks again (with the core's reason) until the answer passes `check`, or the user gives up. */
async function askUntilValid(askOnce: () => Promise<string>, check: (text: string) => void): Promise<string> {
  for (;;) {
    const text = await askOnce();
    try {
      check(text);
      return text;
    } catch (err) {
      if (!isMobilityError(err)) throw err;
      await tryAgainOrCancel(err.message);
    }
  }
}

async function tryAgainOrCancel(message: string): Promise<void> {
  const again = vscode.l10n.t('Try Again');
  const picked = await vscode.window.showErrorMessage(message, { modal: false }, again);
  if (picked !== again) throw new Cancelled();
}
