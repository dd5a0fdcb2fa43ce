// What server reflection said about a target, kept for a while in the state folder: a server that answers reflection only
// with a token would otherwise cost a token per reflection version tried on every `grpc call`, besides the call's own.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../../core/base';
import type { GrpcSchema, GrpcTarget } from '../../core/grpc';
import { protosetOf, schemaFromProtoset } from '../../core/grpc';

/** How long a schema read by reflection is used without asking the server again (said in `grpc --help`). */
export const SCHEMA_CACHE_MS = 10 * 60_000;

interface CachedSchema {
  target: string;
  version: 'v1' | 'v1alpha';
  savedAtMs: number;
  protoset: string;
}

/** `<state>/grpc-schemas/<hash>.json`: one file per target and way of connecting. */
function cacheFile(stateDir: string, target: GrpcTarget): string {
  const key = createHash('sha256')
    .update(
      JSON.stringify([target.address, target.plaintext === true, target.caFile ? path.resolve(target.caFile) : null]),
    )
    .digest('hex')
    .slice(0, 32);
  return path.join(stateDir, 'grpc-schemas', `${key}.json`);
}

/** The schema reflection gave for `target` less than SCHEMA_CACHE_MS ago, or undefined (none, too old, unreadable). */
export function cachedSchema(stateDir: string, target: GrpcTarget, nowMs = Date.now()): GrpcSchema | undefined {
  const file = cacheFile(stateDir, target);
  try {
    const cached = JSON.parse(fs.readFileSync(file, 'utf8')) as CachedSchema;
    const age = nowMs - cached.savedAtMs;
    if (
      cached.target !== target.address ||
      !(age >= 0 && age < SCHEMA_CACHE_MS) ||
      (cached.version !== 'v1' && cached.version !== 'v1alpha')
    )
      return undefined;
    return schemaFromProtoset(
      Buffer.from(cached.protoset, 'base64'),
      { kind: 'reflection', version: cached.version },
      file,
    );
  } catch {
    return undefined;
  }
}

/** Keeps a schema read by reflection; a folder that cannot be written costs only the cache (`onProblem` says why). */
export function saveSchema(
  stateDir: string,
  target: GrpcTarget,
  schema: GrpcSchema,
  onProblem: (message: string) => void,
  nowMs = Date.now(),
): void {
  if (schema.source.kind !== 'reflection' || !schema.files?.length) return;
  const file = cacheFile(stateDir, target);
  const cached: CachedSchema = {
    target: target.address,
    version: schema.source.version,
    savedAtMs: nowMs,
    protoset: Buffer.from(protosetOf(schema)).toString('base64'),
  };
  const temp = `${file}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(temp, JSON.stringify(cached), { mode: 0o600 });
    fs.renameSync(temp, file);
  } catch (err) {
    fs.rmSync(temp, { force: true });
    onProblem(
      `cannot keep the schema reflection gave in ${path.dirname(file)} (${errorMessage(err)}); the next call asks the server again.`,
    );
  }
}
