import { sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type { Credential, SigningAlgorithm } from '../src/core/auth/credential';
import { IssueClock } from '../src/core/clock/issueClock';
import { TokenIssuer } from '../src/core/auth/tokenIssuer';
import { MINTING_ENVIRONMENT, credentialFromPem, ecPem, makeCredentials, rsaPem, signPlain } from './benchKeys';
import type { ReportedFigure } from './figures';
import { round3 } from './figures';
import { alternate, interleave, median, medianRatio, nowMs } from './stats';

const AUDIENCE = MINTING_ENVIRONMENT.baseUrl;
/** Parallel figures keep this many signatures in flight, each on a different key. */
const IN_FLIGHT = 8;

function newIssuer(): TokenIssuer {
  return new TokenIssuer({ clock: new IssueClock({ precision: 'milliseconds' }) });
}

/** Tokens per second of `count` sequential calls of `one(i)`. */
async function sequentialRate(count: number, one: (i: number) => Promise<unknown>): Promise<number> {
  const start = nowMs();
  for (let i = 0; i < count; i++) await one(i);
  return count / ((nowMs() - start) / 1000);
}

/** Tokens per second with `workers` loops running at once, each making `perWorker` sequential calls of `one(worker, i)`. */
async function parallelRate(
  workers: number,
  perWorker: number,
  one: (worker: number, i: number) => Promise<unknown>,
): Promise<number> {
  const start = nowMs();
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      for (let i = 0; i < perWorker; i++) await one(w, i);
    }),
  );
  return (workers * perWorker) / ((nowMs() - start) / 1000);
}

/** A signing input of the size of a real token, for the raw `crypto.sign` limit. */
async function signingInputOf(credential: Credential): Promise<Buffer> {
  const token = await signPlain(credential, AUDIENCE, Date.now() / 1000);
  return Buffer.from(token.slice(0, token.lastIndexOf('.')));
}

function rawSign(alg: SigningAlgorithm, data: Buffer, key: KeyObject): Buffer {
  return alg === 'ES256' ? sign('sha256', data, { key, dsaEncoding: 'ieee-p1363' }) : sign('sha256', data, key);
}

function rawSignAsync(alg: SigningAlgorithm, data: Buffer, key: KeyObject): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const done = (err: Error | null, signature: Buffer) => (err ? reject(err) : resolve(signature));
    if (alg === 'ES256') sign('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, done);
    else sign('sha256', data, key, done);
  });
}

interface MintingPlan {
  alg: SigningAlgorithm;
  /** Keys in the round-robin: enough that no key is asked twice within a millisecond. */
  keys: number;
  /** Tokens per sequential batch (about 0.1 s of bare jose). */
  batch: number;
  rounds: number;
}

const PLANS: Record<SigningAlgorithm, MintingPlan> = {
  ES256: { alg: 'ES256', keys: 128, batch: 2000, rounds: 11 },
  RS256: { alg: 'RS256', keys: 16, batch: 300, rounds: 9 },
};

/** Core vs bare jose, sequential and with 8 in flight, for one algorithm. */
export async function mintingFigures(alg: SigningAlgorithm): Promise<ReportedFigure[]> {
  const plan = PLANS[alg];
  const credentials = makeCredentials(alg, plan.keys, `mint-${alg}`);
  const issuer = newIssuer();
  const pick = (i: number) => credentials[i % credentials.length];
  const data = await signingInputOf(pick(0));

  const core = (i: number) => issuer.issue(pick(i), MINTING_ENVIRONMENT);
  const bare = (i: number) => signPlain(pick(i), AUDIENCE, Date.now() / 1000);
  const [seqCore = [], seqBare = [], seqRaw = []] = await interleave(plan.rounds, 2, [
    () => sequentialRate(plan.batch, core),
    () => sequentialRate(plan.batch, bare),
    () => sequentialRate(plan.batch, (i) => Promise.resolve(rawSign(alg, data, pick(i).privateKey))),
  ]);

  // Worker w signs only with keys w, w+8, w+16, ...: 8 in flight, always on 8 different keys,
  // and each key is asked rarely enough that the per-key clock is never what limits the rate.
  const perWorker = Math.max(8, Math.round((plan.batch * 1.5) / IN_FLIGHT));
  const pool = (w: number, i: number) => pick(w + IN_FLIGHT * (i % (plan.keys / IN_FLIGHT)));
  const [parCore = [], parBare = [], parRaw = []] = await interleave(plan.rounds, 2, [
    () => parallelRate(IN_FLIGHT, perWorker, (w, i) => issuer.issue(pool(w, i), MINTING_ENVIRONMENT)),
    () => parallelRate(IN_FLIGHT, perWorker, (w, i) => signPlain(pool(w, i), AUDIENCE, Date.now() / 1000)),
    () => parallelRate(IN_FLIGHT, perWorker, (w, i) => rawSignAsync(alg, data, pool(w, i).privateKey)),
  ]);
  // The same 8 workers, but each bound to a single key: the clock caps each key at 1000/s.
  const boundIssuer = newIssuer();
  const bound: number[] = [];
  for (let r = 0; r < Math.ceil(plan.rounds / 2); r++)
    bound.push(await parallelRate(IN_FLIGHT, perWorker, (w) => boundIssuer.issue(pick(w), MINTING_ENVIRONMENT)));

  const seqRatio = medianRatio(seqCore, seqBare);
  const parRatio = medianRatio(parCore, parBare);
  return [
    {
      name: `minting ${alg} sequential, ${plan.keys} keys round-robin (what our code adds): core / bare jose`,
      value: seqRatio,
      unit: 'x',
      target: '>= 0.9 x bare jose',
      met: seqRatio >= 0.9,
      raw: `core ${round3(median(seqCore))} tokens/s, bare jose SignJWT ${round3(median(seqBare))} tokens/s, crypto.sign on the main thread ${round3(median(seqRaw))} signatures/s (limit)`,
    },
    {
      name: `minting ${alg} parallel, 8 in flight on 8 different keys (${plan.keys / IN_FLIGHT} keys per worker): core / bare jose`,
      value: parRatio,
      unit: 'x',
      target: '>= 0.9 x bare jose',
      met: parRatio >= 0.9,
      raw: `core ${round3(median(parCore))} tokens/s, bare jose ${round3(median(parBare))} tokens/s, async crypto.sign 8 in flight ${round3(median(parRaw))} signatures/s (limit); core with each worker on one fixed key (clock cap 8 x 1000/s) ${round3(median(bound))} tokens/s`,
    },
  ];
}

let lastStepMs = 0;

/** Returns once Date.now() has passed the last step, waiting with setTimeout as the issue clock does. */
async function nextMillisecondBySetTimeout(): Promise<void> {
  for (;;) {
    const now = Date.now();
    if (now > lastStepMs) {
      lastStepMs = now;
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(1, lastStepMs + 1 - now)));
  }
}

/** One key, millisecond clock: spec 5.1 rule 6 allows at most 1000 tokens/s on it. */
export async function singleKeyFigure(): Promise<ReportedFigure> {
  const [credential] = makeCredentials('ES256', 1, 'single');
  const one = credential;
  const issuer = newIssuer();
  const sequential: number[] = [];
  const pipelined: number[] = [];
  const timerSteps: number[] = [];
  await sequentialRate(200, () => issuer.issue(one, MINTING_ENVIRONMENT));
  for (let r = 0; r < 5; r++) {
    sequential.push(await sequentialRate(400, () => issuer.issue(one, MINTING_ENVIRONMENT)));
    pipelined.push(await parallelRate(IN_FLIGHT, 50, () => issuer.issue(one, MINTING_ENVIRONMENT)));
    timerSteps.push(await sequentialRate(400, nextMillisecondBySetTimeout));
  }
  const rate = median(sequential);
  return {
    name: 'minting ES256 on ONE key, millisecond clock (limit of spec 5.1 rule 6: 1000 tokens/s)',
    value: rate,
    unit: 'tokens/s',
    target: '>= 900 tokens/s (0.9 x the 1000/s rule 6 allows)',
    met: rate >= 900,
    raw: `sequential ${round3(rate)} tokens/s, 8 in flight on the same key ${round3(median(pipelined))} tokens/s; a bare loop that only waits for the next millisecond with setTimeout (which the in-process clock no longer does: it takes a turn of the event loop): ${round3(median(timerSteps))} steps/s`,
  };
}

/** First token from a PEM (parse + first issue, which imports the key) against later tokens. */
export async function keyImportFigure(alg: SigningAlgorithm): Promise<ReportedFigure> {
  const pem = alg === 'RS256' ? rsaPem() : ecPem();
  const issuer = newIssuer();
  const rounds = alg === 'RS256' ? 9 : 11;
  const batch = alg === 'RS256' ? 150 : 1000;
  // The same PEM under different kids: each parse gives a new KeyObject (nothing cached yet) and a
  // clock of its own, so later tokens can go round-robin without the clock limiting them.
  const warm: Credential[] = [];
  const prefill = alg === 'RS256' ? 16 : 128;
  const parseMs: number[] = [];
  const firstIssueMs: number[] = [];
  const firstTokenMs: number[] = [];
  const later: number[] = [];
  const bare: number[] = [];
  const pick = (i: number) => warm[i % warm.length];
  for (let round = 0; round < rounds + prefill; round++) {
    const t0 = nowMs();
    const credential = credentialFromPem(alg, pem, `import-${alg}-${round}`);
    const t1 = nowMs();
    await issuer.issue(credential, MINTING_ENVIRONMENT);
    const t2 = nowMs();
    warm.push(credential);
    if (round < prefill) continue; // the first credentials only fill the round-robin
    parseMs.push(t1 - t0);
    firstIssueMs.push(t2 - t1);
    firstTokenMs.push(t2 - t0);
    const pair = await alternate(
      1,
      0,
      async () => 1000 / (await sequentialRate(batch, (i) => issuer.issue(pick(i), MINTING_ENVIRONMENT))),
      async () => 1000 / (await sequentialRate(batch, (i) => signPlain(pick(i), AUDIENCE, Date.now() / 1000))),
    );
    later.push(...pair.a);
    bare.push(...pair.b);
  }
  const ratio = medianRatio(later, bare);
  return {
    name: `key import ${alg}: later tokens through the core / bare jose (key cached per credential in memory)`,
    value: ratio,
    unit: 'x time per token',
    target: '<= 1.1 x bare jose',
    met: ratio <= 1.1,
    raw: `first token from PEM ${round3(median(firstTokenMs))} ms (parseCredential ${round3(median(parseMs))} ms + first issue ${round3(median(firstIssueMs))} ms), later tokens ${round3(median(later))} ms, bare jose ${round3(median(bare))} ms`,
  };
}
