import type { CliIo } from '../support/cliIo';
import { apiFrom, CREDENTIAL_OPTIONS, environmentFrom, issuerFrom, loadCredential, parse } from '../support/options';
import { printUsage } from '../support/usage';

/** `mobility-api token`: one token on stdout, for curl and scripts. */
export async function tokenCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parse(args, { ...CREDENTIAL_OPTIONS, aud: { type: 'string' }, api: { type: 'string' } });
  if (values.help) return printUsage(io);
  const api = apiFrom(values, false);
  const credential = loadCredential(values, io, api);
  const env = environmentFrom(values.aud, '--aud', api, values);
  const issued = await issuerFrom(values, io).issuer.issue(credential, env);
  io.out(issued.token);
  return 0;
}
