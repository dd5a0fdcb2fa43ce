// The secret scanner of test/e2e/canary.test.ts: collects everything a real VS Code run wrote or shows
// (files on the server, the browser's IndexedDB/localStorage/sessionStorage, every frame's DOM) and
// searches it for a canary key in every form we can think of, for known tokens, and for any compact JWS
// that the canary key signed, including tokens the test never saw (the ones sent with requests).
import { createDecipheriv, createPublicKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { compactVerify, decodeProtectedHeader } from 'jose';
import type { Page } from 'playwright-core';
import { distinctKeyPair } from '../unit/keyFixtures';

/** One string that must not appear, with a name for reports (never the string itself). */
export interface Needle {
  name: string;
  text: string;
}

/** A test-time P-256 key and the forms its private part could take in a leak. */
export interface CanaryKey {
  kid: string;
  pem: string;
  publicKey: KeyObject;
  privateKey: KeyObject;
  /** PEM body lines, JWK `d`, the raw scalar as base64 and hex. */
  needles: Needle[];
}

/** Generates the canary key; nothing of it is ever written to the repository. */
export function canaryKey(kid: string): CanaryKey {
  const { privateKey } = distinctKeyPair('p256');
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  const d = (privateKey.export({ format: 'jwk' }) as { d: string }).d;
  const scalar = Buffer.from(d, 'base64url');
  const lines = pem.split('\n').filter((l) => l && !l.startsWith('-----'));
  const needles: Needle[] = [
    ...lines.filter((l) => l.length >= 24).map((text, i) => ({ name: `PEM body line ${i + 1}`, text })),
    { name: 'JWK d (base64url)', text: d },
    { name: 'private scalar (base64)', text: scalar.toString('base64').replace(/=+$/, '') },
    { name: 'private scalar (hex)', text: scalar.toString('hex') },
  ];
  return { kid, pem, privateKey, publicKey: createPublicKey(privateKey), needles };
}

/** The needles for a token: the whole token and its signature (which is unique to it). */
export function tokenNeedles(token: string, name: string): Needle[] {
  return [
    { name, text: token },
    { name: `${name} (signature)`, text: token.split('.')[2] ?? token },
  ];
}

/** Something to scan: a file, a storage entry, a frame's DOM. */
export interface ScanSource {
  name: string;
  bytes: Buffer;
}

export interface ScanHit {
  source: string;
  what: string;
}

/** What one scan looked at and found. */
export interface ScanReport {
  sources: number;
  files: number;
  bytes: number;
  needles: number;
  /** JWT-shaped strings found anywhere, each checked against the canary key. */
  jwtCandidates: number;
  /** kid of every JWT-shaped string found (none of them should be the canary's). */
  jwtKids: Record<string, number>;
  hits: ScanHit[];
}

const JWS = /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/g;

/** The forms a needle may take in bytes: UTF-8, UTF-16LE, URL-encoded, JSON-escaped slashes. */
function encodings(text: string): Buffer[] {
  const forms = new Set([text, encodeURIComponent(text), text.replace(/\//g, '\\/')]);
  return [...forms].flatMap((f) => [Buffer.from(f, 'utf8'), Buffer.from(f, 'utf16le')]);
}

/**
 * Searches sources for needles and for compact JWS signed by the canary key (checked by signature, and by
 * the canary kid in the header, so that a token the test never saw is found too).
 */
export async function scan(sources: ScanSource[], needles: Needle[], key: CanaryKey): Promise<ScanReport> {
  const forms = needles.map((n) => ({ name: n.name, forms: encodings(n.text) }));
  const report: ScanReport = {
    sources: sources.length,
    files: sources.filter((s) => s.name.startsWith('file:')).length,
    bytes: 0,
    needles: needles.length,
    jwtCandidates: 0,
    jwtKids: {},
    hits: [],
  };
  const verified = new Map<string, boolean>();
  for (const source of sources) {
    report.bytes += source.bytes.length;
    for (const needle of forms) {
      if (needle.forms.some((f) => source.bytes.includes(f)))
        report.hits.push({ source: source.name, what: needle.name });
    }
    for (const text of [source.bytes.toString('latin1'), source.bytes.toString('utf16le')]) {
      for (const match of text.matchAll(JWS)) {
        const jws = match[0];
        report.jwtCandidates++;
        let kid: string;
        try {
          const header = decodeProtectedHeader(jws).kid;
          kid = typeof header === 'string' ? header : '(no kid)';
        } catch {
          kid = '(undecodable)';
        }
        report.jwtKids[kid] = (report.jwtKids[kid] ?? 0) + 1;
        if (!verified.has(jws))
          verified.set(
            jws,
            await compactVerify(jws, key.publicKey).then(
              () => true,
              () => false,
            ),
          );
        if (verified.get(jws) || kid === key.kid)
          report.hits.push({
            source: source.name,
            what: `a token of ${kid} (${verified.get(jws) ? 'signed by the canary key' : 'canary kid'})`,
          });
      }
    }
  }
  return report;
}

/** One line for the test output: what was scanned and what was found. */
export function describeReport(label: string, r: ScanReport): string {
  const kids =
    Object.entries(r.jwtKids)
      .map(([k, n]) => `${k}×${n}`)
      .join(', ') || 'none';
  return (
    `${label}: ${r.files} files + ${r.sources - r.files} other sources, ${(r.bytes / 1024 / 1024).toFixed(1)} MB; ` +
    `${r.needles} secret strings (×6 encodings) searched, ${r.jwtCandidates} JWT-shaped strings checked against the canary key (kids: ${kids}); hits: ${r.hits.length}`
  );
}

/** Every file under the folders, as sources named `file:<folder label>/<relative path>`. */
export function fileSources(folders: Record<string, string>): ScanSource[] {
  const sources: ScanSource[] = [];
  for (const [label, dir] of Object.entries(folders)) {
    if (!fs.existsSync(dir)) continue;
    for (const rel of fs.readdirSync(dir, { recursive: true }) as string[]) {
      const file = path.join(dir, rel);
      let stat: fs.Stats;
      try {
        stat = fs.statSync(file);
      } catch {
        continue; // removed while we listed (a log rotated, a lock file)
      }
      if (!stat.isFile()) continue;
      try {
        sources.push({ name: `file:${label}/${rel}`, bytes: fs.readFileSync(file) });
      } catch {
        // a socket or a file removed meanwhile
      }
    }
  }
  return sources;
}

interface DumpedEntry {
  name: string;
  text?: string;
  base64?: string;
}

/**
 * The browser side of VS Code's storage for the workbench origin: every IndexedDB database (globalState
 * and workspace state in vscode-web-state-db-*, browser logs in vscode-web-db), localStorage (where
 * code-server keeps SecretStorage, encrypted) and sessionStorage. Webviews are served from the same origin.
 */
export async function browserStorageSources(page: Page): Promise<ScanSource[]> {
  const entries = await page.evaluate(async () => {
    const out: { name: string; text?: string; base64?: string }[] = [];
    const toBase64 = (bytes: Uint8Array) => {
      let s = '';
      for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      return btoa(s);
    };
    const serialise = (name: string, value: unknown) => {
      if (typeof value === 'string') out.push({ name, text: value });
      else if (value instanceof Uint8Array) out.push({ name, base64: toBase64(value) });
      else if (value instanceof ArrayBuffer) out.push({ name, base64: toBase64(new Uint8Array(value)) });
      else if (value instanceof Blob) out.push({ name, text: '(blob)' });
      else {
        try {
          out.push({ name, text: JSON.stringify(value) });
        } catch {
          out.push({ name, text: String(value) });
        }
      }
    };
    for (const info of await indexedDB.databases()) {
      if (!info.name) continue;
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const request = indexedDB.open(info.name!);
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error ?? new Error('indexedDB.open failed'));
      });
      for (const store of Array.from(db.objectStoreNames)) {
        const { keys, values } = await new Promise<{ keys: IDBValidKey[]; values: unknown[] }>((resolve, reject) => {
          const tx = db.transaction(store, 'readonly');
          const keysRequest = tx.objectStore(store).getAllKeys();
          const valuesRequest = tx.objectStore(store).getAll();
          tx.oncomplete = () => resolve({ keys: keysRequest.result, values: valuesRequest.result });
          tx.onerror = () => reject(tx.error ?? new Error('transaction failed'));
        });
        keys.forEach((key, i) =>
          serialise(
            `indexedDB:${info.name}/${store}/${typeof key === 'string' || typeof key === 'number' ? key : JSON.stringify(key)}`,
            values[i],
          ),
        );
      }
      db.close();
    }
    for (const [label, storage] of [
      ['localStorage', localStorage],
      ['sessionStorage', sessionStorage],
    ] as const) {
      for (let i = 0; i < storage.length; i++) {
        const key = storage.key(i) ?? '';
        out.push({ name: `${label}:${key}`, text: `${key}=${storage.getItem(key) ?? ''}` });
      }
    }
    return out;
  });
  return entries.map((e: DumpedEntry) => ({
    name: e.name,
    bytes: e.base64 !== undefined ? Buffer.from(e.base64, 'base64') : Buffer.from(e.text ?? '', 'utf8'),
  }));
}

/**
 * Every frame's DOM: the workbench (tree, notifications, quick input, Output view), each webview's outer
 * frame and its inner frame with the extension's HTML. Shadow roots and form values are included, as
 * outerHTML leaves them out.
 */
export async function frameSources(page: Page): Promise<ScanSource[]> {
  const sources: ScanSource[] = [];
  for (const [i, frame] of page.frames().entries()) {
    const html = await frame
      .evaluate(() => {
        const parts = [document.documentElement.outerHTML];
        const walk = (root: Document | ShadowRoot) => {
          for (const el of Array.from(root.querySelectorAll('*'))) {
            if (el.shadowRoot) {
              parts.push(el.shadowRoot.innerHTML);
              walk(el.shadowRoot);
            }
            if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) parts.push(el.value);
          }
        };
        walk(document);
        return parts.join('\n');
      })
      .catch(() => undefined);
    if (html !== undefined)
      sources.push({
        name: `frame:${i}:${frame.url().replace(/\?.*$/, '').slice(-80)}`,
        bytes: Buffer.from(html, 'utf8'),
      });
  }
  return sources;
}

/**
 * code-server's SecretStorage, decrypted: it keeps every secret in localStorage `secrets.provider`,
 * sealed with AES-256-GCM under a key whose server half is the file `serve-web-key-half` in the user-data
 * folder (the blob is client half ‖ IV ‖ ciphertext ‖ tag). Undefined when nothing is stored yet.
 */
export async function codeServerSecrets(page: Page, userDataDir: string): Promise<Record<string, string> | undefined> {
  const sealed = await page.evaluate(() => localStorage.getItem('secrets.provider'));
  if (!sealed) return undefined;
  const blob = Buffer.from(sealed, 'base64');
  const serverHalf = fs.readFileSync(path.join(userDataDir, 'serve-web-key-half'));
  const clientHalf = blob.subarray(0, 32);
  const key = Buffer.alloc(32);
  for (let i = 0; i < 32; i++) key[i] = clientHalf[i] ^ serverHalf[i];
  const iv = blob.subarray(32, 44);
  const sealedText = blob.subarray(44);
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAuthTag(sealedText.subarray(sealedText.length - 16));
  const plain = Buffer.concat([decipher.update(sealedText.subarray(0, sealedText.length - 16)), decipher.final()]);
  return JSON.parse(plain.toString('utf8')) as Record<string, string>;
}

/** The extension's globalState as the workbench stores it (IndexedDB vscode-web-state-db-global). */
export async function extensionGlobalState(
  page: Page,
  extensionId: string,
): Promise<Record<string, unknown> | undefined> {
  const text = await page.evaluate(async (id) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = indexedDB.open('vscode-web-state-db-global');
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error ?? new Error('indexedDB.open failed'));
    });
    try {
      if (!db.objectStoreNames.contains('ItemTable')) return undefined;
      return await new Promise<unknown>((resolve, reject) => {
        const request = db.transaction('ItemTable', 'readonly').objectStore('ItemTable').get(id);
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error ?? new Error('get failed'));
      });
    } finally {
      db.close();
    }
  }, extensionId);
  if (text === undefined || text === null) return undefined;
  return JSON.parse(typeof text === 'string' ? text : new TextDecoder().decode(text as Uint8Array)) as Record<
    string,
    unknown
  >;
}
