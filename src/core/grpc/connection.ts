// The channel to a gRPC server: TLS with the system's and Node's root certificates (or a CA file),
// plaintext only to this computer (a token must not cross a network in clear). A channel is made
// ready before any token is signed; when it cannot be, a probe tells why (nothing listens, the
// server speaks TLS or plaintext, the certificate is not trusted).
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import * as l10n from '@vscode/l10n';
import * as grpc from '@grpc/grpc-js';
import { errorMessage, MobilityError } from '../base';
import { hasUserInfo, userInfoProblem } from '../environment';

/** Where to connect and how. */
export interface GrpcTarget {
  /** `host:port` (`[::1]:50051` for IPv6); a host alone means port 443. */
  address: string;
  /** No TLS: only for loopback addresses (localhost, 127.0.0.0/8, ::1). */
  plaintext?: boolean;
  /** A PEM file of CA certificates to trust instead of the system's. */
  caFile?: string;
  /** The largest message sent or received, in bytes; grpc-js's default is 4 MiB received. */
  maxMessageBytes?: number;
}

/** An open channel; `close` ends it. */
export interface GrpcConnection {
  target: GrpcTarget;
  host: string;
  port: number;
  client: grpc.Client;
  /** Resolves once the channel is ready; GRPC_UNREACHABLE or GRPC_TLS with the reason otherwise. */
  ready(deadlineMs: number, signal?: AbortSignal): Promise<void>;
  close(): void;
}

const DEFAULT_CONNECT_MS = 10_000;

export function parseTarget(address: string): { host: string; port: number } {
  const text = address.trim();
  // Before the check below, whose message quotes the target: a target with a password is refused without it.
  if (hasUserInfo(text)) throw new MobilityError('GRPC_TARGET_INVALID', userInfoProblem(l10n.t('The gRPC target')));
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:/[\]]+))(?::(\d{1,5}))?$/.exec(text);
  const port = m?.[3] === undefined ? 443 : Number(m[3]);
  if (!m || port < 1 || port > 65535) {
    throw new MobilityError(
      'GRPC_TARGET_INVALID',
      l10n.t(
        'The target must be host:port, such as api.example.com:443 or 127.0.0.1:50051, not "{0}" (no scheme, no path).',
        address,
      ),
    );
  }
  return { host: m[1] ?? m[2], port };
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The root certificates of TLS: the CA file's, else the system's and Node's. */
function rootCertificates(caFile: string | undefined): Buffer | undefined {
  if (caFile !== undefined) {
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(caFile);
    } catch (err) {
      throw new MobilityError(
        'FILE_READ_FAILED',
        l10n.t('Cannot read the CA file {0}: {1}.', caFile, errorMessage(err)),
      );
    }
    checkPemCertificates(caFile, bytes);
    return bytes;
  }
  // Node 22.15+ reads the operating system's store; older Nodes have only their bundled roots (grpc-js's default).
  const getCa = (tls as unknown as { getCACertificates?: (kind: string) => string[] }).getCACertificates;
  if (!getCa) return undefined;
  return Buffer.from([...getCa('default'), ...getCa('system')].join('\n'));
}

/**
 * A CA file must hold PEM certificates ("-----BEGIN CERTIFICATE-----"), each one that parses: grpc-js would otherwise
 * fail every handshake with a message about trust, not about the file.
 */
function checkPemCertificates(caFile: string, bytes: Buffer): void {
  const blocks = bytes.toString('latin1').match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (!blocks.length) {
    let der: boolean;
    try {
      der = Boolean(new X509Certificate(bytes));
    } catch {
      der = false;
    }
    throw new MobilityError(
      'GRPC_TARGET_INVALID',
      der
        ? l10n.t(
            'The CA file {0} is a DER certificate, not a PEM one: convert it (openssl x509 -inform der -in {0} -out ca.pem) and give the .pem file.',
            caFile,
          )
        : l10n.t(
            'The CA file {0} is not a PEM certificate (it has no "-----BEGIN CERTIFICATE-----" block): give the CA certificate in PEM form.',
            caFile,
          ),
    );
  }
  for (const [i, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch (err) {
      throw new MobilityError(
        'GRPC_TARGET_INVALID',
        l10n.t(
          'Certificate {0} in the CA file {1} is not a valid PEM certificate: {2}.',
          i + 1,
          caFile,
          errorMessage(err),
        ),
      );
    }
  }
}

/** Opens a channel (lazily: nothing is sent until `ready` or a call). */
export function openConnection(target: GrpcTarget): GrpcConnection {
  const { host, port } = parseTarget(target.address);
  if (target.plaintext && !isLoopback(host)) {
    throw new MobilityError(
      'GRPC_TARGET_INVALID',
      l10n.t(
        'Plaintext is only for this computer (localhost, 127.0.0.1, ::1): {0} would receive tokens unencrypted. Leave out --plaintext (in VS Code: "plaintext" in mobilityApi.grpc.environments) to use TLS.',
        host,
      ),
    );
  }
  if (target.plaintext && target.caFile !== undefined)
    throw new MobilityError(
      'GRPC_TARGET_INVALID',
      l10n.t('A CA file is for TLS: give either plaintext or a CA file, not both.'),
    );
  const credentials = target.plaintext
    ? grpc.credentials.createInsecure()
    : grpc.credentials.createSsl(rootCertificates(target.caFile));
  const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  const limits =
    target.maxMessageBytes === undefined
      ? {}
      : {
          'grpc.max_receive_message_length': target.maxMessageBytes,
          'grpc.max_send_message_length': target.maxMessageBytes,
        };
  const client = new grpc.Client(address, credentials, { 'grpc.enable_retries': 0, ...limits });
  let probed: Promise<void> | undefined;
  const connection: GrpcConnection = {
    target,
    host,
    port,
    client,
    ready: async (deadlineMs, signal) => {
      // A plaintext channel to a TLS server may look connected until the first call: ask first.
      if (target.plaintext) {
        probed ??= probePlaintext(host, port, Math.min(deadlineMs, DEFAULT_CONNECT_MS));
        await probed;
      }
      await waitReady(client.getChannel(), Math.min(deadlineMs, DEFAULT_CONNECT_MS), signal).catch(
        async (err: unknown) => {
          if (err instanceof MobilityError) throw err;
          throw await diagnose(target, host, port, Math.min(deadlineMs, DEFAULT_CONNECT_MS));
        },
      );
    },
    close: () => client.close(),
  };
  return connection;
}

/** Waits for READY; rejects (with no reason) at the first TRANSIENT_FAILURE or at the deadline. */
function waitReady(
  channel: ReturnType<grpc.Client['getChannel']>,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const onAbort = () =>
      reject(new MobilityError('GRPC_FAILED', l10n.t('The call was cancelled before it was sent.')));
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const check = () => {
      const state = channel.getConnectivityState(true);
      if (state === grpc.connectivityState.READY) {
        signal?.removeEventListener('abort', onAbort);
        return resolve();
      }
      if (state === grpc.connectivityState.TRANSIENT_FAILURE || state === grpc.connectivityState.SHUTDOWN)
        return reject(new Error('not ready'));
      channel.watchConnectivityState(state, deadline, (err) => (err ? reject(new Error('timeout')) : check()));
    };
    check();
  });
}

/** Starts a TLS handshake: resolves with how it ended. */
function tryTls(
  host: string,
  port: number,
  timeoutMs: number,
  ca?: Buffer,
): Promise<{ ok: true } | { ok: false; code: string; message: string }> {
  return new Promise((resolve) => {
    const socket = tls.connect({
      host,
      port,
      ALPNProtocols: ['h2'],
      ...(net.isIP(host) ? {} : { servername: host }),
      ...(ca ? { ca } : {}),
      timeout: timeoutMs,
    });
    const done = (result: { ok: true } | { ok: false; code: string; message: string }) => {
      socket.destroy();
      resolve(result);
    };
    socket.once('secureConnect', () => done({ ok: true }));
    socket.once('timeout', () => done({ ok: false, code: 'ETIMEDOUT', message: 'timeout' }));
    socket.once('error', (err: NodeJS.ErrnoException) =>
      done({ ok: false, code: err.code ?? '', message: err.message }),
    );
    socket.once('close', () => done({ ok: false, code: 'ECONNRESET', message: 'closed' }));
  });
}

/** A plaintext target that completes a TLS handshake speaks TLS: refuse before a token goes out in clear. */
async function probePlaintext(host: string, port: number, timeoutMs: number): Promise<void> {
  const result = await tryTls(host, port, timeoutMs);
  const certificateProblem = !result.ok && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS_CERT/.test(result.code);
  if (result.ok || certificateProblem) {
    throw new MobilityError(
      'GRPC_TLS',
      l10n.t(
        '{0}:{1} speaks TLS, not plaintext: leave out --plaintext (in VS Code: "plaintext" in mobilityApi.grpc.environments), and give --ca-file ("caFile") when its certificate is not publicly trusted. Nothing was sent.',
        host,
        port,
      ),
    );
  }
  if (result.code === 'ECONNREFUSED')
    throw unreachable(host, port, l10n.t('nothing listens there (connection refused)'));
}

function unreachable(host: string, port: number, why: string): MobilityError {
  return new MobilityError(
    'GRPC_UNREACHABLE',
    l10n.t(
      'Cannot connect to {0}:{1}: {2}. Check the target and that the server runs. Nothing was sent.',
      host,
      port,
      why,
    ),
  );
}

/** Why a channel did not become ready. */
async function diagnose(target: GrpcTarget, host: string, port: number, timeoutMs: number): Promise<MobilityError> {
  const tcp = await new Promise<string | undefined>((resolve) => {
    const socket = net.connect({ host, port, timeout: timeoutMs });
    socket.once('connect', () => (socket.destroy(), resolve(undefined)));
    socket.once('timeout', () => (socket.destroy(), resolve('ETIMEDOUT')));
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
  if (tcp === 'ECONNREFUSED') return unreachable(host, port, l10n.t('nothing listens there (connection refused)'));
  if (tcp === 'ENOTFOUND' || tcp === 'EAI_AGAIN')
    return unreachable(host, port, l10n.t('the host name does not resolve'));
  if (tcp === 'ETIMEDOUT')
    return unreachable(host, port, l10n.t('no answer within {0} s', Math.round(timeoutMs / 1000)));
  if (tcp) return unreachable(host, port, tcp);
  if (target.plaintext) return unreachable(host, port, l10n.t('the server does not answer as a gRPC server'));
  const result = await tryTls(
    host,
    port,
    timeoutMs,
    target.caFile !== undefined ? rootCertificates(target.caFile) : undefined,
  );
  if (result.ok)
    return unreachable(
      host,
      port,
      l10n.t('the TLS connection works but the server does not answer as a gRPC server (HTTP/2)'),
    );
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS_CERT/.test(result.code)) {
    return new MobilityError(
      'GRPC_TLS',
      l10n.t(
        'The certificate of {0}:{1} is not trusted ({2}). Give the CA that signed it with --ca-file (in VS Code: "caFile" in mobilityApi.grpc.environments). Nothing was sent.',
        host,
        port,
        result.code || result.message,
      ),
    );
  }
  return new MobilityError(
    'GRPC_TLS',
    l10n.t(
      '{0}:{1} does not speak TLS (the handshake failed: {2}); a local plaintext server needs --plaintext (in VS Code: "plaintext": true in mobilityApi.grpc.environments). Nothing was sent.',
      host,
      port,
      result.code || result.message,
    ),
  );
}
