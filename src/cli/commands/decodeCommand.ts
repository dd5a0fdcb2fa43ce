import {
  decodeJwt,
  lintToken,
  parsePublicKey,
  stringifyAsWritten,
  stripTokenText,
  verifyTokenSignature,
} from '../../core/auth';
import { MobilityError } from '../../core/base';
import { hasUserInfo, userInfoProblem } from '../../core/environment';
import type { SignatureCheck } from '../../core/auth';
import type { CliIo } from '../support/cliIo';
import { CREDENTIAL_OPTIONS, domainsFrom, parse, pick } from '../support/options';
import { readFile } from '../support/inputFiles';
import { formatDecoded } from '../support/output';
import { printUsage } from '../support/usage';

/** `mobility-api decode`: the token's parts, times, signature and spec findings. */
export async function decodeCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(
    args,
    {
      json: { type: 'boolean' },
      'public-key': { type: 'string' },
      aud: { type: 'string', multiple: true },
      strict: { type: 'boolean' },
      ...pick(CREDENTIAL_OPTIONS, ['external-org-domain', 'iam-domain', 'service-account-domain']),
    },
    true,
  );
  if (values.help) return printUsage(io);
  if (positionals.length > 1)
    throw new MobilityError('USAGE', 'decode takes one token (or - to read it from standard input).');
  // An --aud is quoted in the findings: one with a password is refused first, without it.
  if (values.aud?.some(hasUserInfo)) throw new MobilityError('USAGE', userInfoProblem('--aud'));
  const text = positionals[0] === undefined || positionals[0] === '-' ? await io.readStdin() : positionals[0];
  const result = decodeJwt(text);
  if (!result.ok) {
    if (values.json) io.out(JSON.stringify({ ok: false, reason: result.reason, code: result.code }));
    else io.err(`mobility-api: not a JWT: ${result.reason}`);
    return 1;
  }
  const findings = lintToken(result.token, {
    now: Date.now(),
    domains: domainsFrom(values, io.env),
    knownAudiences: values.aud,
  });
  let signature: SignatureCheck | undefined;
  if (values['public-key'])
    signature = await verifyTokenSignature(
      stripTokenText(text),
      parsePublicKey(readFile(values['public-key'], '--public-key')),
    );
  if (values.json) {
    // Numbers as the token writes them (`"exp": 1e400`), not as JSON.parse read them (Infinity, which would print as null).
    const numbers = (result.token.writtenNumbers ?? []).map((n) => ({ path: [n.part, ...n.path], text: n.text }));
    io.out(
      stringifyAsWritten(
        {
          ok: true,
          header: result.token.header,
          payload: result.token.payload,
          times: result.token.times,
          lifetimeSeconds: result.token.lifetimeSeconds,
          findings,
          signature: signature ?? { state: 'not-verified' },
        },
        numbers,
        2,
      ),
    );
  } else {
    io.out(formatDecoded(result.token, findings, signature));
  }
  if (signature?.state === 'failed') return 1;
  if (values.strict && findings.some((f) => f.severity === 'error')) return 1;
  return 0;
}
