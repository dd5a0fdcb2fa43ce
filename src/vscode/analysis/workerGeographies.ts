/**
 * The geographies of the analysis worker (the setting mobilityApi.analysis.geographies): a Geography document read
 * and checked once (core/geography), kept while its file is unchanged, indexed for the session's assignment. A URL
 * is read without a token (the Geography API "should be made public"); one that asks for a token is refused with
 * the reason. No vscode.
 */
import fs from 'node:fs';
import { GeographyIndex, isGeographyUrl, readGeographies } from '../../core/geography';

export interface WorkerGeographies {
  /** What the session is keyed on: the source and, for a file, its size and time. */
  key: string;
  source: string;
  index: GeographyIndex;
  list: { geography_id: string; name: string; polygons: number[][][][] }[];
}

let kept: WorkerGeographies | undefined;

function keyOf(source: string): string {
  if (isGeographyUrl(source)) return source;
  const stat = fs.statSync(source, { throwIfNoEntry: false });
  return JSON.stringify([source, stat?.size, stat?.mtimeMs]);
}

/** The geographies of `source`, read again only when the file changed (a URL: once per worker). */
export async function geographiesFor(source: string): Promise<WorkerGeographies> {
  const key = keyOf(source);
  if (kept?.key === key) return kept;
  const set = await readGeographies(source);
  kept = {
    key,
    source,
    index: new GeographyIndex(set),
    list: set.geographies.map((g) => ({
      geography_id: g.geography_id,
      name: g.name,
      polygons: g.polygons.map((rings) => rings.map((ring) => ring.map((p) => [p[0], p[1]]))),
    })),
  };
  return kept;
}
