// Fetch Hours' folder dialog always gets a start folder (issue #24: without one it opened where the last
// dialog was, the hidden .vscode-test folder): the editor's workspace folder first.
import assert from 'node:assert/strict';
import { harvestFolderStart } from '../../src/commands/harvestFolder';

describe('the harvest folder dialog start (issue #24)', () => {
  it('starts in the workspace folder of the file in the editor, else the first workspace folder', () => {
    assert.equal(harvestFolderStart({ editorFolder: '/w/b', workspaceFolders: ['/w/a', '/w/b'], lastHarvest: '/x', home: '/home/u' }), '/w/b');
    assert.equal(harvestFolderStart({ workspaceFolders: ['/w/a', '/w/b'], lastHarvest: '/x', home: '/home/u' }), '/w/a');
  });
  it('without a workspace: the last harvest\'s folder, else the home folder, never "wherever the last dialog was"', () => {
    assert.equal(harvestFolderStart({ workspaceFolders: [], lastHarvest: '/data/trips', home: '/home/u' }), '/data/trips');
    assert.equal(harvestFolderStart({ workspaceFolders: [], home: '/home/u' }), '/home/u');
  });
});
