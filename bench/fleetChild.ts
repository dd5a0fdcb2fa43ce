// One side of the full-fleet benchmark, alone in its process so that its peak RSS is its own.
// Started by fleet.ts over IPC; never run by hand.
import { createPrivateKey } from 'node:crypto';
import type { HttpExchange } from '../src/core/http/exchange';
import type { Credential } from '../src/core/auth/credential';
import { answerParentOnce, credentialFromPem, PlainIatCounter } from './benchKeys';
import type { FleetChildReply, FleetChildRequest } from './fleet';
import { assertSameHeaders, benchClient, environmentOf, plainGet } from './requests';

/** Every vehicle of the fleet through the core client, all pages. */
async function coreSide(request: FleetChildRequest): Promise<Omit<FleetChildReply, 'maxRssKb'>> {
  const credential = credentialFromPem('ES256', request.pem, request.kid);
  const env = environmentOf(request.env);
  const client = benchClient();
  const start = performance.now();
  // 'core-without-text' shows what the page texts the client keeps cost: it drops each as it comes.
  const onPage =
    request.side === 'core-without-text'
      ? (page: HttpExchange) => {
          delete page.text;
        }
      : undefined;
  const listing = await client.listVehicles(env, credential, { allPages: true, onPage });
  const ms = performance.now() - start;
  if (listing.stoppedBecause) throw new Error(`The core listing stopped early: ${listing.stoppedBecause}`);
  if (listing.pages[0]) assertSameHeaders(listing.pages[0]);
  const bytes = listing.pages.reduce((sum, page) => sum + page.bytes, 0);
  return { ms, bytes, vehicles: listing.items.length, pages: listing.pages.length };
}

/** The same with the plain loop: SignJWT + fetch + res.json() per page, following links.next. */
async function plainSide(request: FleetChildRequest): Promise<Omit<FleetChildReply, 'maxRssKb'>> {
  const key: Credential = {
    ...credentialFromPem('ES256', request.pem, request.kid),
    privateKey: createPrivateKey(request.pem),
  };
  const audience = request.env.baseUrl;
  const iats = new PlainIatCounter();
  const vehicles: unknown[] = [];
  let bytes = 0;
  let pages = 0;
  const start = performance.now();
  let url: string | null = `${audience}/vehicles`;
  while (url) {
    const answer = await plainGet(url, key, audience, iats);
    const body = answer.body as { vehicles: unknown[]; links?: { next: string | null } };
    bytes += answer.bytes;
    pages++;
    for (const vehicle of body.vehicles) vehicles.push(vehicle);
    url = body.links?.next ?? null;
  }
  const ms = performance.now() - start;
  return { ms, bytes, vehicles: vehicles.length, pages };
}

answerParentOnce((request: FleetChildRequest) =>
  request.side === 'idle'
    ? Promise.resolve({ ms: 0, bytes: 0, vehicles: 0, pages: 0 })
    : request.side === 'plain'
      ? plainSide(request)
      : coreSide(request),
);
