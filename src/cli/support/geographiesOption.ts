import { GeographyIndex, geographyBaseUrlOf, isGeographyUrl, readGeographies } from '../../core/geography';
import type { GeographySigner } from '../../core/geography';
import { ApiClient } from '../../core/http';
import { MobilityError } from '../../core/base';
import { plural } from '../../shared/format';
import type { CliIo } from './cliIo';
import type { CredentialValues } from './options';
import { CREDENTIAL_OPTIONS, environmentFrom, issuerFrom, loadCredential } from './options';
import { escapeForTerminal } from './output';

/** `--geographies <file | URL>` and, to sign the request for a URL that asks for a token, the credential options. */
export const GEOGRAPHY_OPTIONS = {
  ...CREDENTIAL_OPTIONS,
  geographies: { type: 'string' },
} as const;

/**
 * The geographies of `--geographies`, read and checked (core/geography), indexed for the session's assignment; undefined
 * without the option. A URL is signed when a credential is given: the token's audience is the URL before `/geographies`.
 */
export async function geographiesFrom(
  values: CredentialValues & { geographies?: string },
  io: CliIo,
): Promise<GeographyIndex | undefined> {
  const source = values.geographies;
  if (source === undefined) return undefined;
  let signer: GeographySigner | undefined;
  const credentialGiven =
    values['private-key'] !== undefined || values['key-file'] !== undefined || values.credential !== undefined;
  if (isGeographyUrl(source) && credentialGiven) {
    const baseUrl = geographyBaseUrlOf(source);
    if (!baseUrl)
      throw new MobilityError(
        'USAGE',
        `--geographies ${source}: to sign the request, give the URL of the Geography API's /geographies (or /geographies/{geography_id}); the token's audience is the URL before it.`,
      );
    const environment = environmentFrom(baseUrl, '--geographies', 'mds', values);
    const { issuer, queue } = issuerFrom(values, io);
    signer = { client: new ApiClient({ issuer, queue }), environment, credential: loadCredential(values, io, 'mds') };
  }
  const set = await readGeographies(source, signer);
  const areas = set.geographies.filter((g) => g.polygons.length).length;
  io.err(
    `mobility-api: ${plural(set.geographies.length, 'geography', 'geographies')} from ${escapeForTerminal(source)}${areas < set.geographies.length ? ` (${areas} with an area)` : ''}.`,
  );
  return new GeographyIndex(set);
}
