// `mobility-api test`'s runner over 100 requests with assertions against the same 100 requests sent by the core
// client with the same checks written by hand, the schema check with ajv over the same official schema (issue 37: goal
// <= 1.1 x: the runner, its assertions and the JUnit report cost little more than the checks themselves). The same
// requests with no check at all are printed beside it.
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { planContractRun, runContractPlan, junitReport } from '../src/core/contract';
import { bundledMdsSchema } from '../src/core/conformance';
import { correctSchema } from '../src/core/conformance/schemaCorrections';
import type { SchemaObject } from '../src/core/conformance/schemaCorrections';
import { freeRequest } from '../src/core/mds';
import { makeCredentials, trustEntryOf } from './benchKeys';
import type { ReportedFigure } from './figures';
import { round3 } from './figures';
import { benchClient, environmentOf } from './requests';
import { startSandboxProcess } from './sandboxProcess';
import { alternate, median, medianRatio, nowMs } from './stats';

const REQUESTS = 100;
const ROUNDS = 6;

const ASSERTED = Array.from({ length: REQUESTS }, (_, i) =>
  [
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
  ].join('\n'),
).join('\n\n###\n');

export async function contractFigure(): Promise<ReportedFigure> {
  const [key] = makeCredentials('ES256', 1, 'contract');
  const sandbox = await startSandboxProcess({
    options: { fleetSize: 500, pageSize: 10, verifyTokens: true },
    trust: [trustEntryOf(key)],
  });
  try {
    const environment = environmentOf(sandbox.mds);
    const client = benchClient();
    const request = freeRequest('mds', '/vehicles?page_size=10');
    const tested = async () => {
      const t0 = nowMs();
      const plan = planContractRun([{ name: 'bench.http', text: ASSERTED }], {
        api: 'mds',
        baseUrl: environment.baseUrl,
      });
      const runs = await runContractPlan(plan, { client, environment, credential: key });
      if (runs.length !== REQUESTS || runs.some((r) => !r.passed))
        throw new Error(`The contract run failed: ${JSON.stringify(runs.find((r) => !r.passed)?.outcomes)}`);
      junitReport(['bench.http'], runs, { name: 'bench', timestamp: new Date() });
      return (nowMs() - t0) / REQUESTS;
    };
    // The official vehicles schema (with the corrections `?? mds conformance` applies, so that both sides accept the
    // same answers), compiled once with ajv as a user's own test would.
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    const conforms = ajv.compile(correctSchema(bundledMdsSchema('vehicles') as SchemaObject, 'micromobility'));
    const byHand = async () => {
      const t0 = nowMs();
      for (let i = 0; i < REQUESTS; i++) {
        const result = await client.request(environment, key, request);
        const page = result.pages[0];
        const body = page?.body as { vehicles?: { device_id?: unknown }[] } | undefined;
        const vehicles = body?.vehicles;
        const passed =
          page !== undefined &&
          page.status !== 401 &&
          page.status !== 403 &&
          page.status === 200 &&
          (page.responseHeaders['content-type'] ?? '').includes('json') &&
          vehicles?.length === 10 &&
          typeof vehicles[0]?.device_id === 'string' &&
          vehicles.length > 0 &&
          conforms(body);
        if (!passed)
          throw new Error(
            `A check written by hand failed: ${page?.status} ${JSON.stringify(conforms.errors?.slice(0, 3))}`,
          );
      }
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
    const { a, b } = await alternate(ROUNDS, 1, tested, byHand);
    const { a: again, b: unchecked } = await alternate(ROUNDS, 0, tested, plain);
    const ratio = medianRatio(a, b);
    return {
      name: `contract tests, ${REQUESTS} vehicles requests with 7 assertions each (mds conformance among them) and the JUnit report / the same requests with the same checks written by hand (ajv for the schema)`,
      value: ratio,
      unit: 'x',
      target: '<= 1.1 x',
      met: ratio <= 1.1,
      raw: `per request: test's runner ${round3(median(a))} ms, the checks by hand ${round3(median(b))} ms; no target: runner ${round3(median(again))} ms against no check at all ${round3(median(unchecked))} ms (${round3(medianRatio(again, unchecked))} x); ${ROUNDS} rounds of ${REQUESTS} per side`,
    };
  } finally {
    await sandbox.close();
  }
}
