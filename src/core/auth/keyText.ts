// Key text as users paste it, read for the private- and public-key readers: paste damage undone (JSON string
// wrappers, literal \n, CRLF, a byte-order mark), then split into PEM blocks, a JWK or base64 DER, never quoting the key.
import * as l10n from '@vscode/l10n';
import type { JsonWebKey } from 'node:crypto';
import { MobilityError } from '../base';
import { isRecord } from '../../shared/isRecord';
import { formatBytes } from '../../shared/format';

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
  { form: 'pem'; blocks: PemBlock[] } | { form: 'jwk'; jwk: JsonWebKey } | { form: 'der'; der: Buffer };

/** PEM labels of unencrypted private keys (PKCS#8, SEC1, PKCS#1). */
export const PRIVATE_LABELS: ReadonlySet<string> = new Set(['PRIVATE KEY', 'EC PRIVATE KEY', 'RSA PRIVATE KEY']);
/** PEM labels of public keys (SPKI, PKCS#1). */
export const PUBLIC_LABELS: ReadonlySet<string> = new Set(['PUBLIC KEY', 'RSA PUBLIC KEY']);
/** PEM labels of X.509 certificates. */
export const CERTIFICATE_LABELS: ReadonlySet<string> = new Set([
  'CERTIFICATE',
  'TRUSTED CERTIFICATE',
  'X509 CERTIFICATE',
]);

/** Only these JWK members reach `crypto`: unknown members (and `__proto__`) are never copied. */
const JWK_MEMBERS = ['kty', 'crv', 'x', 'y', 'd', 'n', 'e', 'p', 'q', 'dp', 'dq', 'qi', 'k'] as const;

/**
 * The longest text read as a key or a service-account key file. A key is a few kilobytes (a 4096-bit RSA key in PEM
 * about 3.3 KB, a key file about 2.4 KB, a certificate chain tens of KB); a text a thousand times that long is a
 * wrong file, and reading it (JSON.parse of megabytes of nested brackets, the PEM scan) would hold the extension
 * host for seconds.
 */
export const MAX_KEY_TEXT_CHARS = 1024 * 1024;

/** Throws `code` when `text` is longer than MAX_KEY_TEXT_CHARS; `what` names the kind of text in the message. */
export function checkKeyTextSize(text: string, code: 'KEY_NOT_RECOGNISED' | 'KEY_FILE_INVALID', what: string): void {
  if (text.length <= MAX_KEY_TEXT_CHARS) return;
  throw new MobilityError(
    code,
    l10n.t(
      'This text is {0} long, and {1} is a few kilobytes: it is not the file you meant. Load or paste the key alone (at most {2}).',
      formatBytes(text.length),
      what,
      formatBytes(MAX_KEY_TEXT_CHARS),
    ),
  );
}

/**
 * Splits pasted key text into PEM blocks, a JWK or DER bytes, undoing paste damage first. Throws
 * KEY_NOT_RECOGNISED, ending with `acceptedFormats`, for anything that is none of these.
 */
export function readKeyText(text: string, acceptedFormats: string): KeyText {
  checkKeyTextSize(text, 'KEY_NOT_RECOGNISED', l10n.t('a key'));
  const cleaned = unwrapPastedText(text);
  if (cleaned === '') {
    throw new MobilityError('KEY_NOT_RECOGNISED', l10n.t('The key is empty. {0}', acceptedFormats));
  }
  if (cleaned.startsWith('{')) return { form: 'jwk', jwk: readJwk(cleaned, acceptedFormats) };
  if (cleaned.includes('-----BEGIN ')) return { form: 'pem', blocks: readPemBlocks(cleaned, acceptedFormats) };
  const compact = cleaned.replace(/\s+/g, '');
  if (compact.length >= 64 && isBase64(compact)) return { form: 'der', der: Buffer.from(compact, 'base64') };
  throw new MobilityError(
    'KEY_NOT_RECOGNISED',
    l10n.t('The text is not a key in a format this tool reads. {0}', acceptedFormats),
  );
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
      throw new MobilityError(
        'KEY_NOT_RECOGNISED',
        l10n.t(
          'The PEM block starts with "BEGIN {0}" but ends with "END {1}", so it is damaged. Copy the key again, whole and unchanged.',
          label,
          endLabel,
        ),
      );
    }
    const lines = body
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '');
    const headers = lines.filter((l) => /^[A-Za-z-]+:/.test(l));
    const base64 = lines
      .filter((l) => !/^[A-Za-z-]+:/.test(l))
      .join('')
      .replace(/\s+/g, '');
    if (base64 === '' || !isBase64(base64)) {
      throw new MobilityError(
        'KEY_NOT_RECOGNISED',
        l10n.t(
          'The content of the "BEGIN {0}" block is not valid base64: part of it is missing or was changed. Copy the key again, whole and unchanged.',
          label,
        ),
      );
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
    throw new MobilityError(
      'KEY_NOT_RECOGNISED',
      l10n.t(
        'The PEM text has a BEGIN line but no matching END line, so the key looks truncated. Copy it again including the "-----END" line. {0}',
        acceptedFormats,
      ),
    );
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
    throw new MobilityError(
      'KEY_NOT_RECOGNISED',
      l10n.t('The text starts like JSON but is not valid JSON{0}. {1}', where, acceptedFormats),
    );
  }
  if (isRecord(value) && Array.isArray(value.keys)) {
    const keys: unknown[] = value.keys;
    if (keys.length !== 1) {
      throw new MobilityError(
        'KEY_NOT_RECOGNISED',
        l10n.t(
          'This is a JWK set with {0} keys. Paste the one key you want to use, as a single JSON object.',
          keys.length,
        ),
      );
    }
    value = keys[0];
  }
  if (!isRecord(value)) {
    throw new MobilityError('KEY_NOT_RECOGNISED', l10n.t('The JSON is not a JWK object. {0}', acceptedFormats));
  }
  if (typeof value.kty !== 'string') {
    if (Object.hasOwn(value, 'private_key') && Object.hasOwn(value, 'client_email')) {
      throw new MobilityError(
        'KEY_NOT_RECOGNISED',
        l10n.t('This is a service-account key file, not a key. Load it as a service-account key file instead.'),
      );
    }
    throw new MobilityError(
      'KEY_NOT_RECOGNISED',
      l10n.t('The JSON has no "kty" member, so it is not a JWK. {0}', acceptedFormats),
    );
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

/** True for the errors `crypto` throws when a key needs a passphrase. */
export function isPassphraseError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ERR_MISSING_PASSPHRASE' || code === 'ERR_OSSL_CRYPTO_INTERRUPTED_OR_CANCELLED';
}

/** The KEY_ENCRYPTED refusal, shared by the private- and public-key readers. */
export function encryptedKeyError(): MobilityError {
  return new MobilityError(
    'KEY_ENCRYPTED',
    l10n.t(
      'The private key is encrypted with a passphrase, which this tool does not store. Decrypt it first, e.g. with `openssl pkey -in key.pem -out key-plain.pem`, and use the decrypted key.',
    ),
  );
}
