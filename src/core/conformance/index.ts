// conformance: validation of MDS answers against the vendored official MDS 2.0 schemas (ajv), with the documented
// corrections of the official files and findings explained in words. A domain of its own so that code which only
// needs the catalogue never loads ajv and the schemas. Imports `base` and `mds`; never `vscode`.

export type { ConformanceRule } from './findingSummary';
export { MDS_MODES } from './schemaCorrections';
export type { MdsMode } from './schemaCorrections';
export { guessMdsEndpoint, validateMdsResponse } from './validateMds';
export type { ConformanceReport } from './validateMds';
export { bundledMdsSchema, payloadProperty } from './mdsSchemas';
export { geographySchemaErrors } from './geographySchemas';
export type { GeographyAnswerKind, GeographySchemaError } from './geographySchemas';
