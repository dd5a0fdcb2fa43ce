import * as l10n from '@vscode/l10n';
import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import type { JsonWebKey, KeyObject } from 'node:crypto';
import type { SigningAlgorithm } from './credential';
import { MobilityError, withArticle } from '../base';
import { isRecord } from '../../shared/isRecord';

/** One `-----BEGIN …-----` / `-----END …-----` block, rebuilt in the canonical shape OpenSSL reads. */
export interface PemBlock {
  /** The label between `BEGIN ` and the dashes, e.g. `EC PRIVATE KEY`. */
  label: string;
  /** RFC 1421 header lines such as `Proc-Type: 4,ENCRYPTED`. */
  headers: string[];
  /** The block with LF line ends and its base64 body wrapped at 64 characters. */
  pem: string;
  /** True for `ENCRYPTED PRIVATE KEY` and for traditional PEM with `Proc-Type: 4,ENCRYPTED`. */
  encrypted: boolean;
}

/** Key text after the damage that copying and pasting does to it has been undone. */
export type KeyText =
  | { form: 'pem'; blocks: PemBlock[] }
  | { form: 'jwk'; jwk: JsonWebKey }
  | { form: 'der'; der: Buffer };

/** PEM labels of unencrypted private keys (PKCS#8, SEC1, PKCS#1). */
export const PRIVATE_LABELS: ReadonlySet<string> = new Set(['PRIVATE KEY', 'EC PRIVATE KEY', 'RSA PRIVATE KEY']);
/** PEM labels of public keys (SPKI, PKCS#1). */
export const PUBLIC_LABELS: ReadonlySet<string> = new Set(['PUBLIC KEY', 'RSA PUBLIC KEY']);
/** PEM labels of X.509 certificates. */
export const CERTIFICATE_LABELS: ReadonlySet<string> = new Set(['CERTIFICATE', 'TRUSTED CERTIFICATE', 'X509 CERTIFICATE']);

/** Only these JWK members reach `crypto`: unknown members (and `__proto__`) are never copied. */
const JWK_MEMBERS = ['kty', 'crv', 'x', 'y', 'd', 'n', 'e', 'p', 'q', 'dp', 'dq', 'qi', 'k'] as const;

const PRIVATE_FORMATS =
  'Paste a PEM private key (PKCS#8 "PRIVATE KEY", SEC1 "EC PRIVATE KEY" or PKCS#1 "RSA PRIVATE KEY" between its BEGIN and END lines) or a private JWK (a JSON object with "kty" and "d").';

const CURVE_NAMES: Record<string, string> = {
  prime256v1: 'P-256',
  secp384r1: 'P-384',
  secp521r1: 'P-521',
};

/**
 * Reads a private key for signing with `alg` from what a user pasted or loaded: PEM PKCS#8, SEC1
 * or PKCS#1, a private JWK, or base64 DER without the PEM lines. Tolerates surrounding whitespace,
 * CRLF, indentation, literal `\n` escapes and a key wrapped in double quotes (a JSON string value).
 * Throws a {@link MobilityError} that says what to do (never quoting the key) when the text is
 * encrypted, public, a certificate, or a key of the wrong type, curve or size for `alg`.
 */
export function parsePrivateKey(text: string, alg: SigningAlgorithm): KeyObject {
  const keyText = readKeyText(text, PRIVATE_FORMATS);
  let key: KeyObject;
  if (keyText.form === 'jwk') key = privateKeyFromJwk(keyText.jwk);
  else if (keyText.form === 'der') key = privateKeyFromDer(keyText.der);
  else key = privateKeyFromPem(keyText.blocks);
  return checkKeyForAlgorithm(key, alg);
}

/**
 * Splits pasted key text into PEM blocks, a JWK or DER bytes, undoing paste damage first. Throws
 * KEY_NOT_RECOGNISED, ending with `acceptedFormats`, for anything that is none of these.
 */
export function readKeyText(text: string, acceptedFormats: string): KeyText {
  const cleaned = unwrapPastedText(text);
  if (cleaned === '') {
    throw new MobilityError('KEY_NOT_RECOGNISED', l10n.t('The key is empty. {0}', acceptedFormats));
  }
  if (cleaned.startsWith('{')) return { form: 'jwk', jwk: readJwk(cleaned, acceptedFormats) };
  if (cleaned.includes('-----BEGIN ')) return { form: 'pem', blocks: readPemBlocks(cleaned, acceptedFormats) };
  const compact = cleaned.replace(/\s+/g, '');
  if (compact.length >= 64 && isBase64(compact)) return { form: 'der', der: Buffer.from(compact, 'base64') };
  throw new MobilityError('KEY_NOT_RECOGNISED', l10n.t('The text is not a key in a format this tool reads. {0}', acceptedFormats));
}

/** Undoes a JSON string wrapper, literal `\n` escapes, CRLF and a byte-order mark. */
function unwrapPastedText(text: string): string {
  let t = text.replace(/^\uFEFF/, '').trim();
  if (t.length >= 2 && t.startsWith('"') && t.endsWith('"')) {
    t = jsonStringValue(t) ?? t.slice(1, -1).replace(/\\"/g, '"');
    t = t.trim();
  }
  if (!t.startsWith('{')) {
    // A key copied out of a JSON file keeps its escapes; JSON text itself is left to JSON.parse.
    t = t.replace(/\\r\\n|\\n|\\r/g, '\n');
  }
  return t.replace(/\r\n?/g, '\n').trim();
}

function jsonStringValue(quoted: string): string | undefined {
  try {
    const value: unknown = JSON.parse(quoted);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

function isBase64(compact: string): boolean {
  return compact.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(compact);
}

/**
 * The `-----BEGIN x-----…-----END y-----` blocks of `text`, left to right, each ending at the first
 * well-formed END line after its BEGIN line. A scan with indexOf rather than a lazy regex: the regex
 * rescans to the end of the text for every BEGIN line that has no END, which is quadratic (a few MB
 * of BEGIN lines took minutes).
 */
function* pemBlockMatches(text: string): Generator<{ label: string; body: string; endLabel: string }> {
  let from = 0;
  for (;;) {
    const begin = text.indexOf('-----BEGIN ', from);
    if (begin === -1) return;
    const label = pemLabelAt(text, begin + '-----BEGIN '.length);
    if (label === undefined) {
      from = begin + 1;
      continue;
    }
    const bodyStart = begin + '-----BEGIN '.length + label.length + 5;
    let search = bodyStart;
    let end = -1;
    let endLabel: string | undefined;
    while (endLabel === undefined) {
      end = text.indexOf('-----END ', search);
      // No END line after this BEGIN means none after any later BEGIN either.
      if (end === -1) return;
      endLabel = pemLabelAt(text, end + '-----END '.length);
      search = end + 1;
    }
    yield { label, body: text.slice(bodyStart, end), endLabel };
    from = end + '-----END '.length + endLabel.length + 5;
  }
}

/** The label (`[A-Z0-9 ]+`) starting at `at` when five dashes follow it, else undefined. */
function pemLabelAt(text: string, at: number): string | undefined {
  let i = at;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!((c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x20)) break;
  }
  return i > at && text.startsWith('-----', i) ? text.slice(at, i) : undefined;
}

function readPemBlocks(text: string, acceptedFormats: string): PemBlock[] {
  const blocks: PemBlock[] = [];
  for (const { label, body, endLabel } of pemBlockMatches(text)) {
    if (label !== endLabel) {
      throw new MobilityError('KEY_NOT_RECOGNISED', l10n.t('The PEM block starts with "BEGIN {0}" but ends with "END {1}", so it is damaged. Copy the key again, whole and unchanged.', label, endLabel));
    }
    const lines = body.split('\n').map((l) => l.trim()).filter((l) => l !== '');
    const headers = lines.filter((l) => /^[A-Za-z-]+:/.test(l));
    const base64 = lines.filter((l) => !/^[A-Za-z-]+:/.test(l)).join('').replace(/\s+/g, '');
    if (base64 === '' || !isBase64(base64)) {
      throw new MobilityError('KEY_NOT_RECOGNISED', l10n.t('The content of the "BEGIN {0}" block is not valid base64: part of it is missing or was changed. Copy the key again, whole and unchanged.', label));
    }
    const wrapped = base64.match(/.{1,64}/g)?.join('\n') ?? '';
    const headerPart = headers.length > 0 ? `${headers.join('\n')}\n\n` : '';
    blocks.push({
      label,
      headers,
      pem: `-----BEGIN ${label}-----\n${headerPart}${wrapped}\n-----END ${label}-----\n`,
      encrypted: label === 'ENCRYPTED PRIVATE KEY' || headers.some((h) => /^Proc-Type:\s*4,\s*ENCRYPTED/i.test(h)),
    });
  }
  if (blocks.length === 0) {
    throw new MobilityError('KEY_NOT_RECOGNISED', l10n.t('The PEM text has a BEGIN line but no matching END line, so the key looks truncated. Copy it again including the "-----END" line. {0}', acceptedFormats));
  }
  return blocks;
}

function readJwk(text: string, acceptedFormats: string): JsonWebKey {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    // The parser's own message can quote the text, so only its position is passed on.
    const position = /position (\d+)/.exec(err instanceof Error ? err.message : '')?.[1];
    const where = position === undefined ? '' : ` (at character ${Number(position) + 1})`;
    throw new MobilityError('KEY_NOT_RECOGNISED', l10n.t('The text starts like JSON but is not valid JSON{0}. {1}', where, acceptedFormats));
  }
  if (isRecord(value) && Array.isArray(value.keys)) {
    const keys: unknown[] = value.keys;
    if (keys.length !== 1) {
      throw new MobilityError('KEY_NOT_RECOGNISED', l10n.t('This is a JWK set with {0} keys. Paste the one key you want to use, as a single JSON object.', keys.length));
    }
    value = keys[0];
  }
  if (!isRecord(value)) {
    throw new MobilityError('KEY_NOT_RECOGNISED', l10n.t('The JSON is not a JWK object. {0}', acceptedFormats));
  }
  if (typeof value.kty !== 'string') {
    if (Object.hasOwn(value, 'private_key') && Object.hasOwn(value, 'client_email')) {
      throw new MobilityError('KEY_NOT_RECOGNISED', l10n.t('This is a service-account key file, not a key. Load it as a service-account key file instead.'));
    }
    throw new MobilityError('KEY_NOT_RECOGNISED', l10n.t('The JSON has no "kty" member, so it is not a JWK. {0}', acceptedFormats));
  }
  const jwk: JsonWebKey = {};
  for (const member of JWK_MEMBERS) {
    const v = Object.hasOwn(value, member) ? value[member] : undefined;
    if (typeof v === 'string') jwk[member] = v;
  }
  return jwk;
}

/** `kty "EC"`, for messages; a pasted value can be any length, so it is cut short. */
export function jwkKtyLabel(kty: string | undefined): string {
  const text = String(kty);
  return `kty "${text.length > 20 ? `${text.slice(0, 20)}…` : text}"`;
}

function privateKeyFromJwk(jwk: JsonWebKey): KeyObject {
  if (jwk.kty === 'oct') {
    throw new MobilityError('KEY_WRONG_TYPE', l10n.t('This JWK is a shared secret (kty "oct"), not a private key; ES256 and RS256 sign with an EC or RSA private key. Use the private key delivered with the credentials.'));
  }
  if (jwk.d === undefined) {
    throw new MobilityError('KEY_PUBLIC_NOT_PRIVATE', l10n.t('This JWK is a public key (it has no "d" member), but signing needs the private key. Use the private key delivered with the credentials.'));
  }
  try {
    return createPrivateKey({ key: jwk, format: 'jwk' });
  } catch (err) {
    throw new MobilityError('KEY_NOT_RECOGNISED', l10n.t('The JWK ({0}) could not be read: a member is missing or is not valid base64url. {1}', jwkKtyLabel(jwk.kty), PRIVATE_FORMATS), { cause: err });
  }
}

function privateKeyFromPem(blocks: PemBlock[]): KeyObject {
  const privateBlock = blocks.find((b) => PRIVATE_LABELS.has(b.label) && !b.encrypted);
  if (privateBlock) {
    try {
      return createPrivateKey(privateBlock.pem);
    } catch (err) {
      if (isPassphraseError(err)) throw encryptedKeyError();
      throw new MobilityError('KEY_NOT_RECOGNISED', l10n.t('The "BEGIN {0}" block could not be read as a key: its content is incomplete or damaged. Copy the key again, whole and unchanged.', privateBlock.label), { cause: err });
    }
  }
  if (blocks.some((b) => b.encrypted)) throw encryptedKeyError();
  if (blocks.some((b) => PUBLIC_LABELS.has(b.label))) throw publicKeyError();
  if (blocks.some((b) => CERTIFICATE_LABELS.has(b.label))) throw certificateError();
  if (blocks.some((b) => b.label === 'OPENSSH PRIVATE KEY')) {
    throw new MobilityError('KEY_NOT_RECOGNISED', l10n.t('This is an OpenSSH private key, a format this tool does not read. {0}', PRIVATE_FORMATS));
  }
  const labels = blocks.map((b) => `"BEGIN ${b.label}"`).join(', ');
  throw new MobilityError('KEY_NOT_RECOGNISED', l10n.t('The PEM text holds {0} but no private key. {1}', labels, PRIVATE_FORMATS));
}

function privateKeyFromDer(der: Buffer): KeyObject {
  for (const type of ['pkcs8', 'sec1', 'pkcs1'] as const) {
    try {
      return createPrivateKey({ key: der, format: 'der', type });
    } catch (err) {
      if (isPassphraseError(err)) throw encryptedKeyError();
    }
  }
  if (isPublicKeyDer(der)) throw publicKeyError();
  if (isCertificate(der)) throw certificateError();
  throw new MobilityError('KEY_NOT_RECOGNISED', l10n.t('The text looks like base64 but is not a private key. {0}', PRIVATE_FORMATS));
}

function isPublicKeyDer(der: Buffer): boolean {
  return (['spki', 'pkcs1'] as const).some((type) => {
    try {
      createPublicKey({ key: der, format: 'der', type });
      return true;
    } catch {
      return false;
    }
  });
}

function isCertificate(der: Buffer): boolean {
  try {
    new X509Certificate(der);
    return true;
  } catch {
    return false;
  }
}

/** True for the errors `crypto` throws when a key needs a passphrase. */
export function isPassphraseError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ERR_MISSING_PASSPHRASE' || code === 'ERR_OSSL_CRYPTO_INTERRUPTED_OR_CANCELLED';
}

/** The KEY_ENCRYPTED refusal, shared by the private- and public-key readers. */
export function encryptedKeyError(): MobilityError {
  return new MobilityError('KEY_ENCRYPTED', l10n.t('The private key is encrypted with a passphrase, which this tool does not store. Decrypt it first, e.g. with `openssl pkey -in key.pem -out key-plain.pem`, and use the decrypted key.'));
}

function publicKeyError(): MobilityError {
  return new MobilityError('KEY_PUBLIC_NOT_PRIVATE', l10n.t('This is a public key, but signing needs the private key. Use the private key delivered with the credentials.'));
}

function certificateError(): MobilityError {
  return new MobilityError('KEY_CERTIFICATE', l10n.t('This is a certificate, which holds only the public key. Use the private key delivered with the credentials.'));
}

/** A short, safe description of a key's kind, e.g. `an EC key on P-384` or `an RSA key (1024 bits)`. */
export function describeKeyKind(key: KeyObject): string {
  const details = key.asymmetricKeyDetails ?? {};
  switch (key.asymmetricKeyType) {
    case 'ec':
      return `an EC key on ${curveLabel(details.namedCurve)}`;
    case 'rsa':
      return `an RSA key (${String(details.modulusLength)} bits)`;
    case 'rsa-pss':
      return 'an RSA-PSS key';
    case 'ed25519':
      return 'an Ed25519 key';
    case 'ed448':
      return 'an Ed448 key';
    default:
      return key.asymmetricKeyType === undefined ? 'a key of an unknown type' : withArticle(`${key.asymmetricKeyType.toUpperCase()} key`);
  }
}

function curveLabel(namedCurve: string | undefined): string {
  if (namedCurve === undefined) return 'an unknown curve';
  const standard = CURVE_NAMES[namedCurve];
  return standard === undefined ? namedCurve : `${standard} (${namedCurve})`;
}

function checkKeyForAlgorithm(key: KeyObject, alg: SigningAlgorithm): KeyObject {
  const kind = describeKeyKind(key);
  if (alg === 'ES256') {
    if (key.asymmetricKeyType !== 'ec') {
      throw new MobilityError('KEY_WRONG_TYPE', l10n.t('This is {0}, but ES256 (External Organization and IAM credentials) needs an EC private key on P-256 (prime256v1). Use the EC key delivered with the credentials.', kind));
    }
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve !== 'prime256v1') {
      throw new MobilityError('KEY_WRONG_CURVE', l10n.t('This EC key is on the curve {0}, but ES256 needs P-256 (prime256v1). Use the P-256 key delivered with the credentials.', curveLabel(curve)));
    }
    return key;
  }
  if (key.asymmetricKeyType !== 'rsa') {
    throw new MobilityError('KEY_WRONG_TYPE', l10n.t('This is {0}, but RS256 needs an RSA private key, as held in service-account key files. Use the private_key of the service-account key file.', kind));
  }
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < 2048) {
    throw new MobilityError('KEY_RSA_TOO_SMALL', l10n.t('This RSA key has {0} bits, but RS256 needs at least 2048 bits. Use the key of a current service-account key file.', bits));
  }
  return key;
}
