// geography: MDS Geography documents (geography/README.md: geographies.json, the Geography API's /geographies) read
// from a file or a URL (signed through `http` when asked), checked against the official schema (`conformance`), with
// effective and retire dates, and the index that says which geographies contain a point (flatbush and
// point-in-polygon-hao). Imports `base`, `environment`, `auth` (types), `conformance` and `http`; never `vscode`.

export { geographySetOf, parseGeographyDocument } from './geographyDocument';
export type { GeographySet, MdsGeography, PolygonRings, Position } from './geographyDocument';
export { GeographyIndex } from './geographyIndex';
export { geographyBaseUrlOf, isGeographyUrl, readGeographies } from './readGeographies';
export type { GeographySigner } from './readGeographies';
