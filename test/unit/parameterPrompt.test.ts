// The input box of an endpoint parameter quotes one date, its default (issue #24: the end_time box quoted
// an example hour, the last hour used and the default).
import assert from 'node:assert/strict';
import { MDS_CATALOGUE } from '../../src/core/mds/mdsCatalogue';
import { endpointDefaults } from '../../src/core/mds/mdsRequests';
import { parameterPrompt } from '../../src/results/requests/parameterPrompt';

const now = Date.parse('2026-11-25T08:41:07Z');

function endpoint(id: string) {
  const found = MDS_CATALOGUE.find((e) => e.id === id);
  assert.ok(found, id);
  return found;
}

describe('endpoint parameter prompts (issue #24)', () => {
  it('the end_time box of /trips quotes one hour, the default, in its prompt and placeholder', () => {
    const trips = endpoint('trips');
    const [endTime] = trips.parameters;
    const { prompt, placeHolder } = parameterPrompt(endTime, endpointDefaults(trips, now).end_time);
    const hours = new Set(prompt.match(/\d{4}-\d{2}-\d{2}(T\d{2})?/g) ?? []);
    assert.deepEqual([...hours], ['2026-11-25T07'], prompt);
    assert.equal(placeHolder, '2026-11-25T07');
    assert.match(
      prompt,
      /^end_time: The UTC hour in which the trips ended: .*Format: YYYY-MM-DDTHH \(UTC\)\. Default: the last complete UTC hour \(2026-11-25T07\)\.$/,
    );
  });

  it('every parameter with a default quotes no other date or timestamp than that default', () => {
    for (const e of MDS_CATALOGUE) {
      const defaults = endpointDefaults(e, now);
      for (const p of e.parameters) {
        if (!defaults[p.name]) continue;
        const { prompt } = parameterPrompt(p, defaults[p.name]);
        const quoted = new Set(prompt.match(/\d{4}-\d{2}(-\d{2}(T\d{2})?)?|\d{12,}/g) ?? []);
        assert.deepEqual([...quoted], [defaults[p.name]], `${e.id} ${p.name}: ${prompt}`);
      }
    }
  });

  it('a parameter without a default shows the format with its example', () => {
    const vehicle = MDS_CATALOGUE.find((e) => e.parameters.some((p) => p.format === 'uuid' && !p.defaultValue));
    assert.ok(vehicle);
    const p = vehicle.parameters.find((x) => x.format === 'uuid');
    assert.ok(p);
    const { prompt, placeHolder } = parameterPrompt(p, undefined);
    assert.match(prompt, /for example 3c9604d6-b5ee-11e8-96f8-529269fb1459/);
    assert.equal(placeHolder, p.example);
  });
});
