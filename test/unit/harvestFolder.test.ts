// Fetch Hours' folder dialog always gets a start folder (issue #24: without one it opened where the last
// dialog was, the hidden .vscode-test folder): the editor's workspace folder first.
import assert from 'node:assert/strict';
import { endpointsOnEnter, harvestFolderStart } from '../../src/vscode/harvest/harvestFolder';

describe('the harvest folder dialog start (issue #24)', () => {
  it('starts in the workspace folder of the file in the editor, else the first workspace folder', () => {
    assert.equal(
      harvestFolderStart({
        editorFolder: '/w/b',
        workspaceFolders: ['/w/a', '/w/b'],
        lastHarvest: '/x',
        home: '/home/u',
      }),
      '/w/b',
    );
    assert.equal(
      harvestFolderStart({ workspaceFolders: ['/w/a', '/w/b'], lastHarvest: '/x', home: '/home/u' }),
      '/w/a',
    );
  });
  it('without a workspace: the last harvest\'s folder, else the home folder, never "wherever the last dialog was"', () => {
    assert.equal(
      harvestFolderStart({ workspaceFolders: [], lastHarvest: '/data/trips', home: '/home/u' }),
      '/data/trips',
    );
    assert.equal(harvestFolderStart({ workspaceFolders: [], home: '/home/u' }), '/home/u');
  });
});

describe('Enter in Fetch Hours\' endpoint pick (issue 37: typing "Trips" and Enter ended the command with an error)', () => {
  const items = [
    { label: 'Trips', id: 'trips' },
    { label: 'Telemetry', id: 'telemetry' },
    { label: 'Historical events', id: 'events_historical' },
    { label: 'Snapshot of /vehicles and /vehicles/status', id: 'snapshot' },
  ];
  const [trips, telemetry, events, snapshot] = items;
  const isEndpoint = (item: { id: string }) => item.id !== 'snapshot';
  const enter = (ticked: typeof items, highlighted: typeof items, filter: string) =>
    endpointsOnEnter({ ticked, highlighted, filter, items, isEndpoint })?.map((i) => i.id);
  it('takes what is ticked when an endpoint is among it', () => {
    assert.deepEqual(enter([telemetry, snapshot], [trips], 'trips'), ['telemetry', 'snapshot']);
  });
  it('with no endpoint ticked, the highlighted one, with the snapshot box if ticked', () => {
    assert.deepEqual(enter([], [trips], 'Trips'), ['trips']);
    assert.deepEqual(enter([snapshot], [events], ''), ['snapshot', 'events_historical']);
  });
  it("with nothing highlighted, the endpoints the filter's text names", () => {
    assert.deepEqual(enter([], [], 'Trips'), ['trips']);
    assert.deepEqual(enter([], [], 'tele'), ['telemetry']);
  });
  it('nothing to take (no text, or text naming no endpoint): the pick stays open', () => {
    assert.equal(enter([], [], ''), undefined);
    assert.equal(enter([snapshot], [snapshot], 'snap'), undefined);
    assert.equal(enter([], [], 'bikes'), undefined);
  });
});
