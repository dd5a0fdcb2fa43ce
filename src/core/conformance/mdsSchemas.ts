/**
 * The bundled official MDS 2.0 schemas (./schemas/*.json) compiled with ajv, lazily and once per (response, variant,
 * mode). Each JSON response is compiled twice: the envelope (its payload array's items accepted as they are) and one
 * item, so that a page is checked item by item with bounded memory and correct counts per rule.
 */
import Ajv2020 from 'ajv/dist/2020';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { MdsEndpointId } from '../mds';
import { fastPassDefs, inlineLocalRefs, rememberingRegExp } from './fastPass';
import type { MdsMode, SchemaCorrectionId, SchemaObject } from './schemaCorrections';
import { correctSchema, officialSchema } from './schemaCorrections';
import eventsHistorical from './schemas/events_historical.json';
import eventsRecent from './schemas/events_recent.json';
import isoDayhour from './schemas/iso-dayhour.json';
import reports from './schemas/reports.json';
import source from './schemas/source.json';
import stop from './schemas/stop.json';
import stops from './schemas/stops.json';
import telemetry from './schemas/telemetry.json';
import trips from './schemas/trips.json';
import vehicle from './schemas/vehicle.json';
import vehicleStatus from './schemas/vehicle_status.json';
import vehicles from './schemas/vehicles.json';
import vehiclesStatus from './schemas/vehicles_status.json';

/** Where the bundled schemas come from. */
export interface MdsSchemaSource {
  repository: string;
  ref: string;
  commit: string;
  license: string;
}

/** The source of the vendored official schemas (mds-openapi, branch and commit). */
export const MDS_SCHEMA_SOURCE: MdsSchemaSource = {
  repository: source.repository,
  ref: source.ref,
  commit: source.commit,
  license: source.license,
};

/** A schema of the bundle by name: one per endpoint, plus the hour parameter's type. */
export type MdsSchemaName = MdsEndpointId | 'iso-dayhour';

const BUNDLED: Record<MdsSchemaName, unknown> = {
  vehicles,
  vehicle,
  vehicles_status: vehiclesStatus,
  vehicle_status: vehicleStatus,
  trips,
  telemetry,
  events_historical: eventsHistorical,
  events_recent: eventsRecent,
  stops,
  stop,
  reports,
  'iso-dayhour': isoDayhour,
};

/**
 * The bundled official schema of one response, as published (no correction applied): for readers that need the
 * models' shapes (field names and types), not a verdict. Callers must not change it.
 */
export function bundledMdsSchema(name: MdsEndpointId): Readonly<Record<string, unknown>> {
  return BUNDLED[name] as Record<string, unknown>;
}

/** The name of the payload array of each JSON response (`vehicles`, `vehicles_status`, ...); null for reports. */
export function payloadProperty(endpoint: MdsEndpointId): string | null {
  return (source.schemas as Record<string, { itemsProperty?: string | null }>)[endpoint]?.itemsProperty ?? null;
}

/** `corrected`: the official schema with every correction (the verdict); `official`: as published (to label bugs). */
export type SchemaVariant = 'corrected' | 'official';

/** The compiled validators of one response. */
export interface CompiledMdsSchema {
  /** The whole response, with the payload array's items accepted as they are (or the whole schema when no payload array). */
  envelope: ValidateFunction;
  /** One item of the payload array; null when the response has none. */
  item: ValidateFunction | null;
  /**
   * The same item check compiled to stop at the first error and keep no details: most items of most
   * pages conform, and this answers "fine" for them in a fraction of the time; `item` explains the rest.
   */
  fastItem: ValidateFunction | null;
  /** The document compiled (for explanations: titles and branches of combinators). */
  root: SchemaObject;
  /** Official variant only: schema objects at which a known bug shows. */
  bugs: ReadonlyMap<object, SchemaCorrectionId>;
}

let ajv: Ajv2020 | undefined;
let fastAjv: Ajv2020 | undefined;
const compiled = new Map<string, CompiledMdsSchema>();

function getAjv(): Ajv2020 {
  if (!ajv) {
    // verbose: errors carry the schema objects they come from, to collapse the branches of oneOf/anyOf and to tell
    // findings caused by a known bug. strictTypes off: the official files put `properties` beside `$ref`s to objects.
    ajv = new Ajv2020({
      allErrors: true,
      verbose: true,
      strict: true,
      strictTypes: false,
      strictTuples: false,
      strictRequired: false,
      allowUnionTypes: true,
    });
    addFormats(ajv);
  }
  return ajv;
}

/**
 * The same options, but stopping at the first error and keeping no schema references: the fast yes/no pass, over the
 * rewritten schema of fastPass.ts (which uses ajv's `discriminator`), its patterns remembering the ids they accepted.
 */
function getFastAjv(): Ajv2020 {
  if (!fastAjv) {
    fastAjv = new Ajv2020({
      allErrors: false,
      verbose: false,
      strict: true,
      strictTypes: false,
      strictTuples: false,
      strictRequired: false,
      allowUnionTypes: true,
      discriminator: true,
      code: { regExp: rememberingRegExp },
    });
    addFormats(fastAjv);
  }
  return fastAjv;
}

/** The fast pass of an item: its references expanded in place, so that ajv compiles it into one function. */
function compileFastItem(defs: Record<string, unknown>): ValidateFunction {
  const item = inlineLocalRefs(defs, { $ref: '#/$defs/item' });
  return getFastAjv().compile(
    typeof item === 'object' && item !== null ? { ...item, $defs: defs } : { $ref: '#/$defs/item', $defs: defs },
  );
}

/** The validators of `name` for a variant and a mode, compiled on first use and kept. */
export function compiledMdsSchema(name: MdsSchemaName, variant: SchemaVariant, mode: MdsMode): CompiledMdsSchema {
  const key = `${name}|${variant}|${variant === 'official' ? '' : mode}`;
  let entry = compiled.get(key);
  if (!entry) {
    const bundled = BUNDLED[name] as SchemaObject;
    let root: SchemaObject;
    let bugs: ReadonlyMap<object, SchemaCorrectionId> = new Map();
    if (variant === 'corrected') root = correctSchema(bundled, mode);
    else ({ root, bugs } = officialSchema(bundled));
    const rootDefs = (root.$defs ?? {}) as Record<string, unknown>;
    const hasItem = 'item' in rootDefs;
    const ajvInstance = getAjv();
    // Two entry points over the same document: the envelope sees `$defs/item` as `true`.
    const envelope = ajvInstance.compile(hasItem ? { ...root, $defs: { ...rootDefs, item: true } } : root);
    const item = hasItem ? ajvInstance.compile({ $ref: '#/$defs/item', $defs: rootDefs }) : null;
    const fastItem = hasItem && variant === 'corrected' ? compileFastItem(fastPassDefs(rootDefs)) : null;
    entry = { envelope, item, fastItem, root, bugs };
    compiled.set(key, entry);
  }
  return entry;
}
