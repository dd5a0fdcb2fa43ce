import assert from 'node:assert/strict';
import { waitUntil } from '../unit/support/waitUntil';
import { useWorkbench } from './session';
import { listCommands, outputChannel, runCommand, step } from './workbench';

describe('Mobility API commands in the workbench', () => {
  const wb = useWorkbench();

  it('lists Show Log under the Mobility API category in the command palette', async () => {
    // Narrowed to "Mobility API: Show": the palette renders only the rows in view, and the category has more
    // commands than fit, so an alphabetically late one is not rendered for "Mobility API" alone.
    const listed = await step(wb.page, 'list the palette commands for "Mobility API: Show"', () =>
      listCommands(wb.page, 'Mobility API: Show', ['Mobility API: Show Log']),
    );
    assert.ok(listed.includes('Mobility API: Show Log'), `the palette listed: ${listed.join(' | ')}`);
  });

  it('Show Log opens the Output panel on the Mobility API channel', async () => {
    const page = wb.page;
    await step(page, 'run "Mobility API: Show Log" from the palette', () => runCommand(page, 'Mobility API: Show Log'));
    await step(page, 'wait for the Output panel to show the "Mobility API" channel', async () => {
      const shown = () =>
        waitUntil(
          'the Output panel to show the "Mobility API" channel',
          () => outputChannel(page),
          (c) => c === 'Mobility API',
          { timeoutMs: 15_000, intervalMs: 250 },
        );
      // Under load the palette can drop the Enter that runs the command: when no Output view opened at all, run it once more.
      let channel = await shown().catch(() => outputChannel(page));
      if (channel === undefined) {
        console.log('      no Output view after the first run of the command; running it again');
        await runCommand(page, 'Mobility API: Show Log');
        channel = await shown().catch(() => outputChannel(page));
      }
      assert.equal(
        channel,
        'Mobility API',
        `the Output panel shows ${channel === undefined ? 'no Output view' : `the channel "${channel}"`}`,
      );
    });
  });
});
