// The MDS 2.0 state machines that event-sequence follows: the committed modeTransitions.json is what the vendored
// official modes/*.md (schemas/mds-modes/) give, and the parse reads rows, multi-state cells and the prose rules.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { MODE_MACHINES, parseModeMachine, parseProwStates } from '../../src/core/analysis';

const VENDORED = path.resolve('schemas', 'mds-modes');
const read = (name: string) => fs.readFileSync(path.join(VENDORED, 'modes', `${name}.md`), 'utf8');
const has = (mode: string, from: string, type: string, to: string) =>
  MODE_MACHINES.modes[mode].transitions.some(([f, e, t]) => f === from && e === type && t === to);

describe('MDS 2.0.2 mode state machines (event-sequence)', () => {
  it('the committed transitions are what the vendored official text gives (node scripts/update-mds-modes.mjs regenerates them)', () => {
    const source = JSON.parse(fs.readFileSync(path.join(VENDORED, 'source.json'), 'utf8')) as {
      repository: string;
      ref: string;
      commit: string;
    };
    assert.deepEqual(MODE_MACHINES.source, { repository: source.repository, ref: source.ref, commit: source.commit });
    assert.equal(source.ref, '2.0.2');
    for (const mode of ['micromobility', 'car-share', 'delivery-robots', 'passenger-services']) {
      assert.deepEqual(MODE_MACHINES.modes[mode], parseModeMachine(read(mode)), mode);
    }
    assert.deepEqual(MODE_MACHINES.prowStates, parseProwStates(read('vehicle_states')));
  });

  it('reads every row of the table, each from-state of a cell, and the "any state" sentences; nothing the text does not say', () => {
    // Each row's From cell may list several states.
    for (const from of ['available', 'non_operational', 'elsewhere', 'non_contactable', 'missing'])
      assert.ok(has('micromobility', from, 'agency_pick_up', 'removed'), from);
    assert.ok(
      has('micromobility', 'on_trip', 'changed_geographies', 'on_trip'),
      'a cell written `on_trip ` with a space',
    );
    // "any state can go to `non_contactable` with event type `comms_lost` or `unspecified`", and back with comms_restored.
    assert.ok(has('micromobility', 'missing', 'comms_lost', 'non_contactable'));
    assert.ok(has('micromobility', 'non_contactable', 'unspecified', 'missing'));
    assert.ok(has('micromobility', 'missing', 'located', 'elsewhere'));
    // Not in the text.
    assert.ok(!has('micromobility', 'available', 'trip_end', 'available'));
    assert.ok(!has('micromobility', 'removed', 'trip_start', 'on_trip'));
    assert.ok(!has('car-share', 'available', 'trip_start', 'on_trip'), 'car share starts trips from stopped only');
    assert.ok(has('car-share', 'stopped', 'trip_start', 'on_trip'));
    assert.ok(has('passenger-services', 'reserved', 'passenger_cancellation', 'available'));
    assert.deepEqual(MODE_MACHINES.prowStates, [
      'available',
      'non_operational',
      'reserved',
      'on_trip',
      'stopped',
      'non_contactable',
    ]);
  });

  it('a text without the table or the mode id is refused, not read as an empty machine', () => {
    assert.throws(
      () => parseModeMachine(read('micromobility').replace(/short name identifier/, 'name')),
      /no "short name identifier" sentence/,
    );
    assert.throws(() => parseModeMachine(read('micromobility').replace(/\*\*From\*\*/, 'From')), /no From\/To table/);
  });
});
