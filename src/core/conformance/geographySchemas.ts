/**
 * The Geography API's two answers (`GET /geographies` and `GET /geographies/{geography_id}`, MDS 2.0 geography/README.md),
 * checked against the official schemas bundled from mds-openapi's reference/geography.yaml (./schemas/geographies.json,
 * ./schemas/geography.json, by scripts/update-mds-schemas.mjs). A `geographies.json` flat file has the first shape.
 * No correction applies: none of the known bugs of docs/conformance.md is in these files.
 */
import Ajv2020 from 'ajv/dist/2020';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import geographies from './schemas/geographies.json';
import geography from './schemas/geography.json';

/** Which answer of the Geography API: the list (and `geographies.json`) or one geography. */
export type GeographyAnswerKind = 'geographies' | 'geography';

/** One place where a document breaks the official schema: a JSON Pointer and ajv's words. */
export interface GeographySchemaError {
  path: string;
  message: string;
}

const compiled = new Map<GeographyAnswerKind, ValidateFunction>();

function validatorOf(kind: GeographyAnswerKind): ValidateFunction {
  let validate = compiled.get(kind);
  if (!validate) {
    // The same options as the Provider answers' (mdsSchemas.ts), without `verbose`: no explanations of branches here.
    const ajv = new Ajv2020({
      allErrors: true,
      strict: true,
      strictTypes: false,
      strictTuples: false,
      strictRequired: false,
      allowUnionTypes: true,
    });
    addFormats(ajv);
    validate = ajv.compile(kind === 'geographies' ? geographies : geography);
    compiled.set(kind, validate);
  }
  return validate;
}

/** The places where `document` breaks the official schema of `kind` (empty when it conforms), at most `limit`. */
export function geographySchemaErrors(
  document: unknown,
  kind: GeographyAnswerKind,
  limit = 20,
): GeographySchemaError[] {
  const validate = validatorOf(kind);
  if (validate(document)) return [];
  return (validate.errors ?? [])
    .slice(0, limit)
    .map((e) => ({ path: e.instancePath || '/', message: e.message ?? e.keyword }));
}
