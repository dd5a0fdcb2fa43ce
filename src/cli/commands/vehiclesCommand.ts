import { ApiClient } from '../../core/http';
import type { CliIo } from '../support/cliIo';
import {
  apiFrom,
  CREDENTIAL_OPTIONS,
  environmentFrom,
  HEADER_OPTIONS,
  issuerFrom,
  loadCredential,
  noteOwnAuthorization,
  parse,
  positiveNumber,
  userHeaders,
} from '../support/options';
import { describeFailure, printRefusalAndClock } from '../support/output';
import { answerJson, formatListing, mergedBody } from '../support/resultOutput';
import { printUsage } from '../support/usage';
import { formatBytes } from '../../shared/format';

/** `mobility-api vehicles`: the vehicles listing, page by page with a fresh token each. */
export async function vehiclesCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parse(args, {
    ...CREDENTIAL_OPTIONS,
    'base-url': { type: 'string' },
    api: { type: 'string' },
    status: { type: 'boolean' },
    'device-id': { type: 'string' },
    'all-pages': { type: 'boolean' },
    'max-pages': { type: 'string' },
    ...HEADER_OPTIONS,
    timeout: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (values.help) return printUsage(io);
  const api = apiFrom(values, true);
  const { headers, authorization } = userHeaders(values, api);
  const env = environmentFrom(values['base-url'], '--base-url', api, values, headers);
  const credential = loadCredential(values, io, api);
  const timeoutMs = values.timeout === undefined ? undefined : positiveNumber(values.timeout, '--timeout') * 1000;
  const maxPages = values['max-pages'] === undefined ? undefined : positiveNumber(values['max-pages'], '--max-pages');
  const { issuer, queue, store } = issuerFrom(values, io);
  const client = new ApiClient({ issuer, queue, timeoutMs });
  const stop = new AbortController();
  if (authorization !== undefined) noteOwnAuthorization(io);
  const listing = await client.listVehicles(env, credential, {
    query: { status: values.status, deviceId: values['device-id'] },
    allPages: values['all-pages'],
    maxPages,
    authorization,
    signal: stop.signal,
    onPage: (page, n) => {
      if (values['all-pages'] && !values.json)
        io.err(`page ${n}: ${page.status} ${page.statusText}, ${formatBytes(page.bytes)}`);
    },
  });
  const last = listing.pages[listing.pages.length - 1];
  // A 2xx whose body is broken is a failed listing too, not an empty one.
  if (!last.ok || last.bodyProblem) {
    io.err(`mobility-api: ${describeFailure(last)}`);
    await printRefusalAndClock(last, env, credential, io, store);
    if (values.json && last.bodyKind === 'json') io.out(answerJson(last.body, listing.pages));
    return 1;
  }
  if (values.json)
    io.out(
      answerJson(listing.pages.length === 1 && !values['all-pages'] ? last.body : mergedBody(listing), listing.pages),
    );
  else io.out(formatListing(listing));
  await printRefusalAndClock(last, env, credential, io);
  return 0;
}
