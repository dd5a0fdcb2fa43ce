import { isMdsEndpointId, MDS_ENDPOINT_IDS } from '../../core/mds';
import type { MdsEndpointId } from '../../core/mds';
import { guessMdsEndpoint, validateMdsResponse } from '../../core/conformance';
import { MobilityError } from '../../core/base';
import type { CliIo } from '../support/cliIo';
import { modeOf, parse } from '../support/options';
import { readFile } from '../support/inputFiles';
import { formatConformance } from '../support/resultOutput';
import { printUsage } from '../support/usage';

/**
 * `mobility-api validate <file | ->`: checks a saved MDS 2.0 response (JSON, or a report's CSV)
 * against the official schemas. Exit 0 when it conforms, 1 when it does not.
 */
export async function validateCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(
    args,
    { endpoint: { type: 'string' }, mode: { type: 'string' }, json: { type: 'boolean' } },
    true,
  );
  if (values.help) return printUsage(io);
  if (positionals.length > 1)
    throw new MobilityError('USAGE', 'validate takes one file (or - to read standard input).');
  const source = positionals[0] ?? '-';
  const text = source === '-' ? await io.readStdin() : readFile(source, 'response');
  const body = parseBody(text, source, values.endpoint);
  const endpoint = endpointOf(values.endpoint, body, source);
  const report = validateMdsResponse(endpoint, body, { mode: modeOf(values.mode) });
  io.out(values.json ? JSON.stringify(report, null, 2) : formatConformance(report));
  return report.conforms ? 0 : 1;
}

function parseBody(text: string, source: string, endpoint: string | undefined): unknown {
  if (endpoint === 'reports' || (endpoint === undefined && !/^\s*[[{]/.test(text))) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new MobilityError(
      'USAGE',
      `${source === '-' ? 'Standard input' : source} is not JSON (${(err as Error).message}). Save the response body as it came, or give --endpoint reports for a CSV report.`,
    );
  }
}

function endpointOf(given: string | undefined, body: unknown, source: string): MdsEndpointId {
  if (given !== undefined) {
    if (!isMdsEndpointId(given))
      throw new MobilityError('USAGE', `--endpoint must be one of ${MDS_ENDPOINT_IDS.join(', ')}, not "${given}".`);
    return given;
  }
  const guessed = guessMdsEndpoint(body);
  if (!guessed)
    throw new MobilityError(
      'USAGE',
      `Cannot tell which endpoint ${source === '-' ? 'the response' : source} came from: give --endpoint (${MDS_ENDPOINT_IDS.join(', ')}).`,
    );
  return guessed;
}
