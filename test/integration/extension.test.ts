import assert from 'node:assert/strict';
import * as vscode from 'vscode';

const EXTENSION_ID = 'mobility-api-explorer.mobility-api-explorer';

interface Manifest {
  engines: { vscode: string };
  contributes: { commands: { command: string; title: string; category?: string }[] };
}

function extension(): vscode.Extension<unknown> {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(ext, `${EXTENSION_ID} is not loaded in this VS Code; the runner must pass it as extensionDevelopmentPath.`);
  return ext;
}

/** "^1.100.0" or ">=1.100.0" -> [1, 100, 0] */
function minimumOf(range: string): number[] {
  const match = /(\d+)\.(\d+)\.(\d+)/.exec(range);
  assert.ok(match, `engines.vscode "${range}" has no version in it`);
  return match.slice(1, 4).map(Number);
}

function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

describe('the extension in a real VS Code', () => {
  it('is present and activates through its Show Log command', async () => {
    const ext = extension();
    await vscode.commands.executeCommand('mobilityApi.showLog');
    assert.equal(ext.isActive, true, 'running mobilityApi.showLog did not activate the extension');
  });

  it('registers mobilityApi.showLog and contributes it as "Mobility API: Show Log"', async () => {
    const commands = await vscode.commands.getCommands(true);
    assert.ok(commands.includes('mobilityApi.showLog'), 'mobilityApi.showLog is not among the registered commands');
    const manifest = extension().packageJSON as Manifest;
    const contributed = manifest.contributes.commands.find((c) => c.command === 'mobilityApi.showLog');
    assert.deepEqual({ category: contributed?.category, title: contributed?.title }, { category: 'Mobility API', title: 'Show Log' });
  });

  it('runs on a VS Code at least as new as engines.vscode asks', () => {
    const manifest = extension().packageJSON as Manifest;
    const running = minimumOf(vscode.version);
    const minimum = minimumOf(manifest.engines.vscode);
    assert.ok(compareVersions(running, minimum) >= 0, `VS Code ${vscode.version} is older than engines.vscode ${manifest.engines.vscode}`);
  });
});
