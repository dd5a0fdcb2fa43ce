// TLS material for the network-fault tests, made with the `openssl` command at test time (nothing
// is committed): a CA, a leaf it signs for 127.0.0.1, a leaf for another host name, a leaf that
// expired in 2020, and a self-signed certificate. OpenSSL 3.0's `x509 -req` cannot back-date a
// certificate, so the expired one is signed with `openssl ca -startdate/-enddate`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** PEM key and certificate. */
export interface KeyAndCertificate {
  key: string;
  cert: string;
}

export interface TestCertificates {
  /** The folder holding `ca.pem` (for NODE_EXTRA_CA_CERTS); removed by `remove`. */
  dir: string;
  caFile: string;
  /** Signed by the CA for IP 127.0.0.1, valid now. */
  valid: KeyAndCertificate;
  /** Signed by the CA for DNS other.example.test only. */
  wrongHost: KeyAndCertificate;
  /** Signed by the CA for 127.0.0.1, valid only in January 2020. */
  expired: KeyAndCertificate;
  /** Self-signed for 127.0.0.1. */
  selfSigned: KeyAndCertificate;
  remove(): void;
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

/** Makes the certificates in a new temporary folder. Throws when `openssl` is missing. */
export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'mobility-tls-'));
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    openssl(
      'req',
      '-x509',
      ...EC,
      '-keyout',
      file('ca.key'),
      '-out',
      file('ca.pem'),
      '-subj',
      '/CN=Mobility test CA',
      '-days',
      '2',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    );
    const leaf = (
      name: string,
      san: string,
      sign: (csr: string, ext: string, out: string) => void,
    ): KeyAndCertificate => {
      writeFileSync(
        file(`${name}.ext`),
        `[leaf]\nsubjectAltName=${san}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`,
      );
      openssl(
        'req',
        '-new',
        ...EC,
        '-keyout',
        file(`${name}.key`),
        '-out',
        file(`${name}.csr`),
        '-subj',
        `/CN=${name}`,
      );
      sign(file(`${name}.csr`), file(`${name}.ext`), file(`${name}.pem`));
      return { key: readFileSync(file(`${name}.key`), 'utf8'), cert: readFileSync(file(`${name}.pem`), 'utf8') };
    };
    let serial = 1;
    const signNow = (csr: string, ext: string, out: string) =>
      openssl(
        'x509',
        '-req',
        '-in',
        csr,
        '-CA',
        file('ca.pem'),
        '-CAkey',
        file('ca.key'),
        '-set_serial',
        String(++serial),
        '-days',
        '1',
        '-extfile',
        ext,
        '-extensions',
        'leaf',
        '-out',
        out,
      );
    const valid = leaf('valid', 'IP:127.0.0.1', signNow);
    const wrongHost = leaf('wrong-host', 'DNS:other.example.test', signNow);
    writeFileSync(file('index.txt'), '');
    writeFileSync(file('serial'), '1000\n');
    writeFileSync(
      file('ca.cnf'),
      [
        '[ca]',
        'default_ca = test_ca',
        '[test_ca]',
        `dir = ${dir}`,
        `database = ${file('index.txt')}`,
        `new_certs_dir = ${dir}`,
        `serial = ${file('serial')}`,
        'default_md = sha256',
        'policy = any_name',
        'unique_subject = no',
        '[any_name]',
        'commonName = supplied',
        '',
      ].join('\n'),
    );
    const expired = leaf('expired', 'IP:127.0.0.1', (csr, ext, out) =>
      openssl(
        'ca',
        '-batch',
        '-config',
        file('ca.cnf'),
        '-cert',
        file('ca.pem'),
        '-keyfile',
        file('ca.key'),
        '-in',
        csr,
        '-out',
        out,
        '-notext',
        '-startdate',
        '20200101000000Z',
        '-enddate',
        '20200201000000Z',
        '-extfile',
        ext,
        '-extensions',
        'leaf',
      ),
    );
    openssl(
      'req',
      '-x509',
      ...EC,
      '-keyout',
      file('self.key'),
      '-out',
      file('self.pem'),
      '-subj',
      '/CN=127.0.0.1',
      '-days',
      '1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    );
    const selfSigned = { key: readFileSync(file('self.key'), 'utf8'), cert: readFileSync(file('self.pem'), 'utf8') };
    return {
      dir,
      caFile: file('ca.pem'),
      valid,
      wrongHost,
      expired,
      selfSigned,
      remove: () => rmSync(dir, { recursive: true, force: true }),
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`openssl could not make the test certificates: ${(err as Error).message} ${stderr}`, {
      cause: err,
    });
  }
}
