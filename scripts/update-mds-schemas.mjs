#!/usr/bin/env node
// Regenerates the bundled JSON Schemas of the MDS 2.0 Provider responses (src/core/conformance/schemas/*.json)
// from the vendored official YAML (schemas/mds-openapi/, openmobilityfoundation/mds-openapi, CC BY 4.0).
//
//   node scripts/update-mds-schemas.mjs                      regenerate the JSON from the vendored YAML
//   node scripts/update-mds-schemas.mjs --check              exit 1 when the committed JSON is not what the YAML gives
//   node scripts/update-mds-schemas.mjs --from-git <gitdir> [--ref v2.0]
//                                                            refresh the vendored YAML from a (bare) git dir, then regenerate
//
// The output is the official schema, faithfully: every file reached from reference/provider.yaml (and, for the Geography
// API's two answers, reference/geography.yaml) becomes one `$defs`
// entry and every `$ref` points there. The only changes are annotation keywords dropped to keep the extension bundle
// small (description, examples, x-stoplight: they do not affect validation) and the array items of each response
// routed through `$defs/item`, so that the validator can check the envelope and each item separately. The known bugs of
// the official files are NOT corrected here: src/core/conformance/schemaCorrections.ts corrects them at load, so that
// the official behaviour stays available to label findings caused by those bugs.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const vendorDir = join(root, 'schemas', 'mds-openapi');
const outDir = join(root, 'src', 'core', 'conformance', 'schemas');
const REPOSITORY = 'openmobilityfoundation/mds-openapi';

/** Endpoint id (src/core/mds/mdsEndpoints.ts) -> the OpenAPI path whose GET 200 answer it is. */
const ENDPOINTS = {
  vehicles: '/vehicles',
  vehicle: '/vehicles/{device_id}',
  vehicles_status: '/vehicles/status',
  vehicle_status: '/vehicles/status/{device_id}',
  trips: '/trips',
  telemetry: '/telemetry',
  events_historical: '/events/historical',
  events_recent: '/events/recent',
  stops: '/stops',
  stop: '/stops/{stop_id}',
  reports: '/reports/{filename}',
};

/** The Geography API's answers (reference/geography.yaml), read by `--geographies` (src/core/geography). */
const GEOGRAPHY_ENDPOINTS = {
  geographies: '/geographies',
  geography: '/geographies/{geography_id}',
};

/** The hour parameter's type, validated on its own (request parameters, not a response body). */
const EXTRA_MODELS = { 'iso-dayhour': 'models/data-types/iso-dayhour.yaml' };

const ANNOTATIONS = new Set(['description', 'examples', 'x-stoplight']);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const SCHEMA_ONE = new Set([
  'items',
  'not',
  'if',
  'then',
  'else',
  'additionalProperties',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
]);
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);

function fail(message) {
  console.error(`update-mds-schemas: ${message}`);
  process.exit(2);
}

function git(gitDir, args) {
  return execFileSync('git', ['--git-dir', gitDir, ...args], { maxBuffer: 64 * 1024 * 1024 });
}

/** Copies reference/provider.yaml, reference/geography.yaml, models/** and LICENSE of `ref` from a git dir into schemas/mds-openapi/. */
function refreshVendored(gitDir, ref) {
  if (!existsSync(gitDir)) fail(`no git dir at ${gitDir}`);
  const commit = git(gitDir, ['rev-parse', `${ref}^{commit}`])
    .toString()
    .trim();
  const files = git(gitDir, [
    'ls-tree',
    '-r',
    '--name-only',
    commit,
    '--',
    'reference/provider.yaml',
    'reference/geography.yaml',
    'models',
    'LICENSE',
  ])
    .toString()
    .split('\n')
    .filter(Boolean);
  if (!files.includes('reference/provider.yaml')) fail(`${ref} has no reference/provider.yaml`);
  rmSync(join(vendorDir, 'reference'), { recursive: true, force: true });
  rmSync(join(vendorDir, 'models'), { recursive: true, force: true });
  for (const file of files) {
    const target = join(vendorDir, ...file.split('/'));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, git(gitDir, ['show', `${commit}:${file}`]));
  }
  writeFileSync(
    join(vendorDir, 'source.json'),
    `${JSON.stringify({ repository: REPOSITORY, ref, commit, license: 'CC-BY-4.0' }, null, 2)}\n`,
  );
  console.log(`vendored ${files.length} files of ${REPOSITORY}@${commit} (${ref}) into ${relative(root, vendorDir)}`);
}

/** Files by their path relative to the vendored root, parsed once. */
function loader() {
  const cache = new Map();
  return (file) => {
    if (!cache.has(file)) {
      const full = join(vendorDir, ...file.split('/'));
      if (!existsSync(full)) fail(`$ref to a file that is not vendored: ${file}`);
      cache.set(file, parse(readFileSync(full, 'utf8')));
    }
    return cache.get(file);
  };
}

/** `models/data-types/uuid.yaml` -> `models.data-types.uuid` (readable in schema paths, no JSON Pointer escapes). */
function defKey(file) {
  return file
    .replace(/\.ya?ml$/, '')
    .split('/')
    .join('.');
}

/** Rewrites one schema (and every subschema) of `file`: refs to `#/$defs/<key>`, annotations dropped. */
function rewriteSchema(schema, file, pending) {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key)) continue;
    if (key === '$ref') out.$ref = rewriteRef(value, file, pending);
    else if (SCHEMA_MAPS.has(key) && value && typeof value === 'object') {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewriteSchema(v, file, pending)]));
    } else if (SCHEMA_ONE.has(key)) out[key] = rewriteSchema(value, file, pending);
    else if (SCHEMA_LISTS.has(key) && Array.isArray(value))
      out[key] = value.map((v) => rewriteSchema(v, file, pending));
    // `contains` is a schema, but the v2.0 mode files give it as a list (a known bug): a list stays data, untouched.
    else if (key === 'contains' && !Array.isArray(value)) out[key] = rewriteSchema(value, file, pending);
    else out[key] = value;
  }
  return out;
}

function rewriteRef(ref, file, pending) {
  const [target, fragment = ''] = String(ref).split('#');
  const targetFile = target ? posix.normalize(posix.join(posix.dirname(file), target)) : file;
  pending.add(targetFile);
  return `#/$defs/${defKey(targetFile)}${fragment}`;
}

/** One bundled JSON Schema: `root` (already rewritten) plus every file it reaches, as `$defs`. */
function bundle(rootSchema, load, pending, extraDefs = {}) {
  const defs = {};
  const done = new Set();
  while (pending.size) {
    const [file] = pending;
    pending.delete(file);
    if (done.has(file)) continue;
    done.add(file);
    defs[defKey(file)] = rewriteSchema(load(file), file, pending);
  }
  const sorted = Object.fromEntries(Object.entries({ ...defs, ...extraDefs }).sort(([a], [b]) => a.localeCompare(b)));
  return { ...rootSchema, $defs: sorted };
}

function generate() {
  const source = JSON.parse(readFileSync(join(vendorDir, 'source.json'), 'utf8'));
  const load = loader();
  const providerFile = 'reference/provider.yaml';
  const outputs = new Map();
  const header = (what) => ({
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $comment:
      `Generated by scripts/update-mds-schemas.mjs from ${REPOSITORY}@${source.commit} (${source.ref}), ${what}. ` +
      'Licence CC BY 4.0, (c) Open Mobility Foundation; see schemas/mds-openapi/README.md. Do not edit: regenerate.',
  });
  const index = {};
  const answers = [
    ...Object.entries(ENDPOINTS).map(([endpoint, path]) => [endpoint, path, providerFile]),
    ...Object.entries(GEOGRAPHY_ENDPOINTS).map(([endpoint, path]) => [endpoint, path, 'reference/geography.yaml']),
  ];
  for (const [endpoint, path, referenceFile] of answers) {
    const reference = load(referenceFile);
    const ok = reference.paths?.[path]?.get?.responses?.['200'];
    if (!ok) fail(`${referenceFile} has no GET ${path} 200 answer`);
    const [mediaType, content] = Object.entries(ok.content ?? {})[0] ?? [];
    if (!content?.schema) fail(`${referenceFile} GET ${path} 200 has no schema`);
    const pending = new Set();
    const schema = rewriteSchema(content.schema, referenceFile, pending);
    // The payload array (allOf's last member for every JSON answer): its items go through $defs/item.
    let itemsProperty;
    let itemDef;
    const payload = schema.allOf?.at(-1);
    if (payload?.properties) {
      const [name, array] = Object.entries(payload.properties).find(([, v]) => v?.type === 'array' && v.items) ?? [];
      // One geography (/geographies/{geography_id}) is an object, not an array: the answer has no items to split.
      if (!name && referenceFile === providerFile) fail(`GET ${path}: no payload array in the last allOf member`);
      if (name) {
        itemsProperty = name;
        itemDef = array.items;
        array.items = { $ref: '#/$defs/item' };
      }
    }
    const doc = bundle(
      { ...header(`GET ${path} 200 ${mediaType}`), title: `GET ${path} 200`, ...schema },
      load,
      pending,
      itemDef ? { item: itemDef } : {},
    );
    outputs.set(`${endpoint}.json`, doc);
    index[endpoint] = {
      path,
      mediaType,
      itemsProperty: itemsProperty ?? null,
      ...(referenceFile === providerFile ? {} : { reference: referenceFile }),
    };
  }
  for (const [name, file] of Object.entries(EXTRA_MODELS)) {
    const pending = new Set([file]);
    outputs.set(`${name}.json`, bundle({ ...header(file), $ref: `#/$defs/${defKey(file)}` }, load, pending));
    index[name] = { file };
  }
  outputs.set('source.json', {
    repository: REPOSITORY,
    ref: source.ref,
    commit: source.commit,
    license: 'CC-BY-4.0',
    generatedBy: 'scripts/update-mds-schemas.mjs',
    schemas: index,
  });
  return new Map([...outputs].map(([name, doc]) => [name, `${JSON.stringify(doc, null, 1)}\n`]));
}

function main() {
  const args = process.argv.slice(2);
  const fromGit = args.indexOf('--from-git');
  if (fromGit >= 0) {
    const gitDir = args[fromGit + 1];
    if (!gitDir) fail('--from-git needs the path of a git dir');
    const refAt = args.indexOf('--ref');
    refreshVendored(resolve(gitDir), refAt >= 0 ? args[refAt + 1] : 'v2.0');
  }
  const outputs = generate();
  if (args.includes('--check')) {
    const stale = [...outputs]
      .filter(([name, text]) => {
        const file = join(outDir, name);
        return !existsSync(file) || readFileSync(file, 'utf8') !== text;
      })
      .map(([name]) => name);
    const extra = existsSync(outDir) ? readdirSync(outDir).filter((n) => n.endsWith('.json') && !outputs.has(n)) : [];
    if (stale.length || extra.length) {
      console.error(
        `stale: ${[...stale, ...extra.map((n) => `${n} (not generated)`)].join(', ')}; run node scripts/update-mds-schemas.mjs`,
      );
      process.exit(1);
    }
    console.log(`${outputs.size} files up to date`);
    return;
  }
  mkdirSync(outDir, { recursive: true });
  for (const name of readdirSync(outDir)) if (name.endsWith('.json') && !outputs.has(name)) rmSync(join(outDir, name));
  for (const [name, text] of outputs) writeFileSync(join(outDir, name), text);
  console.log(`wrote ${outputs.size} files to ${relative(root, outDir)}`);
}

main();
