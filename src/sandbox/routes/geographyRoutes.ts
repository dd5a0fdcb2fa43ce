/**
 * The Geography API of the sandbox's world (MDS 2.0 geography/README.md, Endpoints): `GET /geographies` and
 * `GET /geographies/{geography_id}` under each MDS environment, after the token was accepted as for every other route
 * (the spec says the API "should be made public"; the sandbox keeps one rule for all its routes). The answers follow
 * mds-openapi's reference/geography.yaml.
 */
import type { Reply } from './mdsResponses';
import { MDS_CONTENT_TYPE, MDS_VERSION, errorReply } from './mdsResponses';
import { DISTRICTS_PUBLISHED_MS, districtGeographies } from '../world/cityDistricts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The answer of a Geography API path (`rest` after the environment), or undefined when the path is not one. */
export function routeGeographies(rest: readonly string[]): Reply | undefined {
  const [a, b, ...more] = rest;
  if (a !== 'geographies' || more.length) return undefined;
  if (b === undefined || b === '') {
    return {
      status: 200,
      contentType: MDS_CONTENT_TYPE,
      body: { version: MDS_VERSION, last_updated: DISTRICTS_PUBLISHED_MS, geographies: districtGeographies() },
    };
  }
  const id = decodeURIComponent(b);
  if (!UUID.test(id))
    return errorReply(400, 'bad_param', `geography_id ${JSON.stringify(id.slice(0, 40))} is not a UUID.`, [
      `geography_id: ${id.slice(0, 40)}`,
    ]);
  const geography = districtGeographies().find((g) => g.geography_id === id.toLowerCase());
  if (!geography)
    return errorReply(404, 'not_found', `No geography has the geography_id ${JSON.stringify(id)}.`, [
      `geography_id: ${id}`,
    ]);
  return { status: 200, contentType: MDS_CONTENT_TYPE, body: { version: MDS_VERSION, geography } };
}
