/**
 * `--geographies <file | URL>`: a `geographies.json` file, or the Geography API's `/geographies` (or one
 * `/geographies/{geography_id}`) at a URL. The Geography API "should be made public", so a URL is read without a token
 * unless the caller gives a signer: then through the REST client, with a fresh token as any request, whose audience is
 * the environment's base URL (the URL before `/geographies`).
 */
import fs from 'node:fs';
import * as l10n from '@vscode/l10n';
import { MobilityError, errorMessage } from '../base';
import type { Credential } from '../auth';
import type { Environment } from '../environment';
import type { ApiClient } from '../http';
import type { GeographySet } from './geographyDocument';
import { geographySetOf, parseGeographyDocument } from './geographyDocument';

/** The REST client, environment and credential that sign the request for a URL. */
export interface GeographySigner {
  client: ApiClient;
  environment: Environment;
  credential: Credential;
}

const URL_PATTERN = /^https?:\/\//i;
const UNSIGNED_TIMEOUT_MS = 30_000;
/** A city's districts are a few MB at most; a larger answer is not a Geography document. */
const MAX_BYTES = 64 * 1024 * 1024;

/** True when `source` is a URL rather than a file. */
export function isGeographyUrl(source: string): boolean {
  return URL_PATTERN.test(source);
}

/** The base URL of the environment that serves the Geography API at `url`: the URL before `/geographies`. */
export function geographyBaseUrlOf(url: string): string | undefined {
  const match = /^(.*?)\/geographies(?:\.json|\/[^/?#]+)?\/?(?:[?#].*)?$/i.exec(url);
  return match?.[1] || undefined;
}

/** Reads and checks the geographies of a file or URL (see the file's comment). */
export async function readGeographies(source: string, signer?: GeographySigner): Promise<GeographySet> {
  if (!isGeographyUrl(source)) {
    let text: string;
    try {
      text = await fs.promises.readFile(source, 'utf8');
    } catch (err) {
      throw new MobilityError(
        'FILE_READ_FAILED',
        l10n.t('Cannot read the geographies file {0}: {1}', source, errorMessage(err)),
        { cause: err },
      );
    }
    return parseGeographyDocument(text, source);
  }
  if (signer) {
    const exchange = await signer.client.get(source, signer.environment, signer.credential);
    if (exchange.status !== 200) throw refused(source, exchange.status, exchange.statusText, true);
    if (exchange.bodyKind !== 'json')
      throw new MobilityError(
        'GEOGRAPHY_INVALID',
        l10n.t(
          'The geographies at {0} are not JSON ({1}); give an MDS Geography document (geographies.json or the /geographies answer).',
          source,
          exchange.bodyProblem ?? exchange.contentType,
        ),
      );
    return geographySetOf(exchange.body, source);
  }
  let response: Response;
  try {
    response = await fetch(source, {
      headers: { Accept: 'application/vnd.mds+json;version=2.0' },
      redirect: 'follow',
      signal: AbortSignal.timeout(UNSIGNED_TIMEOUT_MS),
    });
  } catch (err) {
    throw new MobilityError(
      'GEOGRAPHY_FETCH_FAILED',
      l10n.t('Could not read the geographies at {0}: {1}', source, errorMessage(err)),
      { cause: err },
    );
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    throw refused(source, response.status, response.statusText, false);
  }
  const length = Number(response.headers.get('content-length') ?? 0);
  if (length > MAX_BYTES) {
    await response.body?.cancel();
    throw new MobilityError(
      'GEOGRAPHY_INVALID',
      l10n.t(
        'The geographies at {0} are larger than {1} MB; that is not a Geography document.',
        source,
        MAX_BYTES / 1024 / 1024,
      ),
    );
  }
  return parseGeographyDocument(await response.text(), source);
}

function refused(source: string, status: number, statusText: string, signed: boolean): MobilityError {
  if ((status === 401 || status === 403) && !signed) {
    return new MobilityError(
      'GEOGRAPHY_FETCH_FAILED',
      l10n.t(
        'The geographies at {0} answered {1} {2}: this server asks for a token. Give a credential (--credential, --private-key with --kid and --iss, or --key-file) to sign the request.',
        source,
        status,
        statusText,
      ),
    );
  }
  return new MobilityError(
    'GEOGRAPHY_FETCH_FAILED',
    l10n.t(
      "The geographies at {0} answered {1} {2}, not 200; give the URL of the Geography API's /geographies or a geographies.json file.",
      source,
      status,
      statusText,
    ),
  );
}
