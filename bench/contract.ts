// `mobility-api test`'s runner over 100 requests with assertions against the same 100 requests sent by the core
// client without any (issue 32: goal <= 1.1 x: the assertions and the JUnit report cost little).
import { planContractRun, runContractPlan, junitReport } from '../src/core/contract';
import { freeRequest } from '../src/core/mds';
import { makeCredentials, trustEntryOf } from './benchKeys';
import type { ReportedFigure } from './figures';
import { round3 } from './figures';
import { benchClient, environmentOf } from './requests';
import { startSandboxProcess } from './sandboxProcess';
import { alternate, median, medianRatio, nowMs } from './stats';

const REQUESTS = 100;
const ROUNDS = 6;

const ASSERTED = Array.from({ length: REQUESTS }, (_, i) => [
  `# @name vehicles-${i}`,
  'GET {{baseUrl}}/vehicles?page_size=10',
  '',
  '?? token accepted',
  '?? status == 200',
  '?? header content-type includes json',
  '?? body vehicles.length == 10',
  '?? body vehicles[0].device_id isString',
  '?? mds items > 0',
  '?? mds conformance',
].join('\n')).join('\n\n###\n');

export async function contractFigure(): Promise<ReportedFigure> {
  const [key] = makeCredentials('ES256', 1, 'contract');
  const sandbox = await startSandboxProcess({ options: { fleetSize: 500, pageSize: 10, verifyTokens: true }, trust: [trustEntryOf(key)] });
  try {
    const environment = environmentOf(sandbox.mds);
    const client = benchClient();
    const request = freeRequest('mds', '/vehicles?page_size=10');
    const tested = async () => {
      const t0 = nowMs();
      const plan = planContractRun([{ name: 'bench.http', text: ASSERTED }], { api: 'mds', baseUrl: environment.baseUrl });
      const runs = await runContractPlan(plan, { client, environment, credential: key });
      if (runs.length !== REQUESTS || runs.some((r) => !r.passed)) throw new Error(`The contract run failed: ${JSON.stringify(runs.find((r) => !r.passed)?.outcomes)}`);
      junitReport(['bench.http'], runs, { name: 'bench', timestamp: new Date() });
      return (nowMs() - t0) / REQUESTS;
    };
    const plain = async () => {
      const t0 = nowMs();
      for (let i = 0; i < REQUESTS; i++) {
        const result = await client.request(environment, key, request);
        if (result.pages[0]?.status !== 200) throw new Error(`The sandbox answered ${result.pages[0]?.status}`);
      }
      return (nowMs() - t0) / REQUESTS;
    };
    const { a, b } = await alternate(ROUNDS, 1, tested, plain);
    const ratio = medianRatio(a, b);
    return {
      name: `contract tests, ${REQUESTS} vehicles requests with 7 assertions each (mds conformance among them) and the JUnit report / the same requests without assertions`,
      value: ratio,
      unit: 'x',
      target: '<= 1.1 x',
      met: ratio <= 1.1,
      raw: `per request: with assertions ${round3(median(a))} ms, without ${round3(median(b))} ms; ${ROUNDS} rounds of ${REQUESTS} per side`,
    };
  } finally {
    await sandbox.close();
  }
}
