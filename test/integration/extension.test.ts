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
  it("Show Log opens the extension's own log channel in the Output panel", async () => {
    // The extension is already active here (onStartupFinished), so this checks what the command does, not activation.
    await vscode.commands.executeCommand('workbench.action.closePanel');
    const isOurLog = (d: vscode.TextDocument) =>
      d.uri.scheme === 'output' && /Mobility API/.test(decodeURIComponent(d.uri.toString()));
    assert.ok(
      !vscode.window.visibleTextEditors.some((e) => isOurLog(e.document)),
      'the log is not shown before the command',
    );
    await vscode.commands.executeCommand('mobilityApi.showLog');
    const deadline = Date.now() + 10_000;
    while (!vscode.window.visibleTextEditors.some((e) => isOurLog(e.document)) && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const sub = vscode.window.onDidChangeVisibleTextEditors(() => {
          sub.dispose();
          resolve();
        });
        setTimeout(() => {
          sub.dispose();
          resolve();
        }, 250);
      });
    }
    const shown = vscode.window.visibleTextEditors.map((e) => e.document.uri.toString());
    assert.ok(
      vscode.window.visibleTextEditors.some((e) => isOurLog(e.document)),
      `the Mobility API log is not among the visible editors: ${shown.join(', ')}`,
    );
  });

  it('registers mobilityApi.showLog and contributes it as "Mobility API: Show Log"', async () => {
    const commands = await vscode.commands.getCommands(true);
    assert.ok(commands.includes('mobilityApi.showLog'), 'mobilityApi.showLog is not among the registered commands');
    const manifest = extension().packageJSON as Manifest;
    const contributed = manifest.contributes.commands.find((c) => c.command === 'mobilityApi.showLog');
    assert.deepEqual(
      { category: contributed?.category, title: contributed?.title },
      { category: 'Mobility API', title: 'Show Log' },
    );
  });

  it('runs on a VS Code at least as new as engines.vscode asks', () => {
    const manifest = extension().packageJSON as Manifest;
    const running = minimumOf(vscode.version);
    const minimum = minimumOf(manifest.engines.vscode);
    assert.ok(
      compareVersions(running, minimum) >= 0,
      `VS Code ${vscode.version} is older than engines.vscode ${manifest.engines.vscode}`,
    );
  });
});
