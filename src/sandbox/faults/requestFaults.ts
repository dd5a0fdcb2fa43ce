/**
 * Faults a sandbox can be told to inject, so that clients' retry logic can be tested: chosen
 * requests answer 202 (hour not processed yet) or 500 a given number of times, then normally.
 */
import type { MdsEndpointId } from '../../core/mds';
import { formatUtcHour, isMdsEndpointId, MDS_HOUR_ENDPOINTS, parseUtcHour, UTC_HOUR_FORMAT } from '../../core/mds';
import { MobilityError } from '../../core/base';

/** One injected fault. */
export interface SandboxFault {
  /** The endpoint it hits (`src/core/mds/mdsEndpoints.ts`). */
  endpoint: MdsEndpointId;
  /** For the hour endpoints (trips, telemetry, events_historical): only this UTC hour, `YYYY-MM-DDTHH`; absent: every request to the endpoint. */
  hour?: string;
  /** 202: "not processed yet, retry later" (with Retry-After); 500: a server error with an MDS error body. */
  status: 202 | 500;
  /** How many matching requests get the fault before the endpoint answers normally; default 1. */
  times?: number;
}

interface ArmedFault {
  endpoint: MdsEndpointId;
  hour?: string;
  status: 202 | 500;
  left: number;
}

function invalid(index: number, what: string): never {
  throw new MobilityError('SANDBOX_OPTIONS_INVALID', `The sandbox option faults[${index}] ${what}.`);
}

/** Checks one fault as given (options come from code and, later, a CLI flag: trust nothing). */
function armed(given: unknown, i: number): ArmedFault {
  if (typeof given !== 'object' || given === null)
    invalid(i, 'is not an object; give { endpoint, hour?, status, times? }');
  const fault = given as Partial<Record<keyof SandboxFault, unknown>>;
  const endpoint = fault.endpoint;
  if (typeof endpoint !== 'string' || !isMdsEndpointId(endpoint))
    invalid(
      i,
      `has the endpoint ${JSON.stringify(endpoint)}; use an id of src/core/mds/mdsEndpoints.ts such as "trips"`,
    );
  const status = fault.status;
  if (status !== 202 && status !== 500) invalid(i, `has the status ${JSON.stringify(status)}; use 202 or 500`);
  const times = fault.times ?? 1;
  if (typeof times !== 'number' || !Number.isInteger(times) || times < 1)
    invalid(i, `has times ${JSON.stringify(fault.times)}; use a whole number, 1 or more`);
  let hour: string | undefined;
  if (fault.hour !== undefined) {
    if (!(MDS_HOUR_ENDPOINTS as readonly string[]).includes(endpoint))
      invalid(i, `gives an hour, but ${endpoint} is not an hour endpoint (${MDS_HOUR_ENDPOINTS.join(', ')})`);
    const ms = typeof fault.hour === 'string' ? parseUtcHour(fault.hour) : undefined;
    if (ms === undefined) invalid(i, `has the hour ${JSON.stringify(fault.hour)}; write ${UTC_HOUR_FORMAT}`);
    hour = formatUtcHour(ms);
  }
  return { endpoint, hour, status, left: times };
}

/** Counts down the faults of one sandbox. */
export class FaultInjector {
  private readonly faults: ArmedFault[];

  constructor(faults: readonly SandboxFault[] = []) {
    if (!Array.isArray(faults))
      throw new MobilityError(
        'SANDBOX_OPTIONS_INVALID',
        'The sandbox option faults must be a list of { endpoint, hour?, status, times? }.',
      );
    this.faults = faults.map((given, i) => armed(given as unknown, i));
  }

  /** The status to inject for this request, counting it down, or undefined to answer normally. */
  take(endpoint: MdsEndpointId, hour?: string): 202 | 500 | undefined {
    const fault = this.faults.find(
      (f) => f.left > 0 && f.endpoint === endpoint && (f.hour === undefined || f.hour === hour),
    );
    if (!fault) return undefined;
    fault.left -= 1;
    return fault.status;
  }
}
