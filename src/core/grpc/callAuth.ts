// The metadata of a call: the user's entries (checked; `authorization` refused unless the user
// asks to send their own) and `authorization: Bearer <JWT>` with a token signed for this call
// alone, by the same issuer, per-key clock and per-key queue as REST requests.
import * as l10n from '@vscode/l10n';
import * as grpc from '@grpc/grpc-js';
import type { KeyRequestQueue } from '../clock';
import type { Credential, IssuedToken, TokenIssuer } from '../auth';
import type { Environment } from '../environment';
import { MobilityError } from '../base';
import { KeyedQueue } from '../clock';

/**
 * Who signs the tokens of gRPC calls: `aud` is the environment's base URL, the audience REST and
 * gRPC share (spec 5.3). Give the same issuer and queue as the REST client so that every token of
 * a key, REST or gRPC, follows one clock and one order.
 */
export interface GrpcAuth {
  environment: Environment;
  credential: Credential;
  issuer: TokenIssuer;
  /** Orders the calls of one key from signing until their response headers; default in-process. */
  queue?: KeyRequestQueue;
  lifetimeSeconds?: number;
}

/** Metadata entries as the user gives them: `[name, value]`, values of `-bin` names in base64. */
export type MetadataEntries = [string, string][];

const fallbackQueue = new KeyedQueue();
const NAME = /^[0-9a-z_.-]+$/;
const RESERVED = /^(grpc-.*|content-type|te|host|user-agent|:.*)$/;
const PRINTABLE = /^[\x20-\x7e]*$/;

/**
 * The user's metadata as grpc-js Metadata. Throws GRPC_METADATA_INVALID for a name or value that
 * cannot be sent and for `authorization` unless `ownAuthorization` (then it is sent as written).
 */
export function userMetadata(entries: MetadataEntries, ownAuthorization = false): grpc.Metadata {
  const metadata = new grpc.Metadata();
  for (const [rawName, value] of entries) {
    const name = rawName.trim().toLowerCase();
    if (!NAME.test(name))
      throw new MobilityError(
        'GRPC_METADATA_INVALID',
        l10n.t(
          'The metadata name {0} cannot be sent: use lower-case letters, digits, -, _ and . (for example x-request-id).',
          JSON.stringify(rawName),
        ),
      );
    if (RESERVED.test(name))
      throw new MobilityError(
        'GRPC_METADATA_INVALID',
        l10n.t('The metadata name {0} is set by gRPC itself and cannot be given.', name),
      );
    if (name === 'authorization' && !ownAuthorization) {
      throw new MobilityError(
        'GRPC_METADATA_INVALID',
        l10n.t(
          'Every call carries "authorization: Bearer <token>" with a token signed for it: leave out your own authorization metadata, or ask explicitly to send it instead of a signed token (a token that was used before is refused, spec 5.1 rule 4).',
        ),
      );
    }
    if (name.endsWith('-bin')) {
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value.trim()))
        throw new MobilityError(
          'GRPC_METADATA_INVALID',
          l10n.t('The value of the binary metadata {0} must be base64.', name),
        );
      metadata.add(name, Buffer.from(value.trim(), 'base64'));
    } else {
      if (!PRINTABLE.test(value))
        throw new MobilityError(
          'GRPC_METADATA_INVALID',
          l10n.t(
            'The value of the metadata {0} may hold printable ASCII only (use a name ending in -bin for binary values).',
            name,
          ),
        );
      metadata.add(name, value);
    }
  }
  return metadata;
}

/** True when the metadata carries an `authorization` of the user's own. */
export function hasOwnAuthorization(metadata: grpc.Metadata): boolean {
  return metadata.get('authorization').length > 0;
}

/**
 * Waits for the key (the per-key queue), signs a fresh token and puts it into a copy of `base`.
 * Call `release` once the server's response headers (or the status) arrived.
 */
export async function signCall(
  auth: GrpcAuth,
  base: grpc.Metadata,
  signal?: AbortSignal,
): Promise<{ metadata: grpc.Metadata; token: IssuedToken; release: () => void }> {
  const queue = auth.queue ?? fallbackQueue;
  const release = await queue.acquire(auth.credential.kid, signal);
  let released = false;
  const releaseOnce = () => {
    if (!released) {
      released = true;
      release();
    }
  };
  try {
    const token = await auth.issuer.issue(auth.credential, auth.environment, {
      signal,
      lifetimeSeconds: auth.lifetimeSeconds,
    });
    const metadata = base.clone();
    metadata.set('authorization', `Bearer ${token.token}`);
    return { metadata, token, release: releaseOnce };
  } catch (err) {
    releaseOnce();
    throw err;
  }
}

/** Sent metadata as shown: the authorization value redacted. */
export function shownMetadata(metadata: grpc.Metadata): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, values] of Object.entries(metadata.toJSON())) {
    out[name] =
      name === 'authorization'
        ? values.map(() => 'Bearer <redacted>')
        : values.map((v) => (Buffer.isBuffer(v) ? v.toString('base64') : String(v)));
  }
  return out;
}
