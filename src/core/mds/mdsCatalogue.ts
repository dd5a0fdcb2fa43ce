/**
 * Every endpoint of the MDS 2.0 Provider API (provider/README.md at tag 2.0.2 and mds-openapi
 * `reference/provider.yaml` on branch v2.0, commit fae69cb5adc947a7fbe36fb0ec32b3549268469b), and
 * the part of the MaaS API that is known. The request builders (`mdsRequests.ts`) read it; so can
 * front ends that list endpoints.
 */
import * as l10n from '@vscode/l10n';
import type { ApiKind } from '../environment';
import { TWO_WEEKS_MS, describeTimestamp, lastCompleteUtcMonth } from './parameterFormats';
import { MDS_CSV_ACCEPT } from '../environment';
import { HOUR_MS, lastCompleteUtcHour } from './utcHour';
import type { CatalogueEndpoint, MdsEndpoint } from './catalogueEndpoint';
import { parameter } from './catalogueEndpoint';

const LAST_HOUR = { description: () => l10n.t('the last complete UTC hour'), value: lastCompleteUtcHour };
const deviceId = parameter('device_id', 'path', 'uuid', () =>
  l10n.t("The device_id of one of the provider's vehicles."),
);

function recentEventsCheck(values: Readonly<Record<string, string>>, nowMs: number): string[] {
  const start = Number(values.start_time);
  const end = Number(values.end_time);
  const problems: string[] = [];
  if (start < nowMs - TWO_WEEKS_MS) {
    problems.push(
      l10n.t(
        'start_time {0} is more than two weeks before now, {1}: /events/recent serves the last two weeks only; ask /events/historical (event_time) for older events',
        describeTimestamp(start),
        describeTimestamp(nowMs),
      ),
    );
  }
  if (end <= start)
    problems.push(
      l10n.t(
        'end_time {0} is not after start_time {1}: events are those with start_time <= timestamp < end_time',
        describeTimestamp(end),
        describeTimestamp(start),
      ),
    );
  return problems;
}

const JSON_STATUSES = [200, 401, 404, 406, 500];
const WITH_PARAMETER_STATUSES = [200, 400, 401, 404, 406, 500];
const HOUR_STATUSES = [200, 202, 400, 401, 404, 406, 500];

/** The MDS 2.0 Provider endpoints, in the order of `MDS_ENDPOINT_IDS`. */
export const MDS_CATALOGUE: readonly MdsEndpoint[] = [
  {
    api: 'mds',
    id: 'vehicles',
    get title() {
      return l10n.t('Vehicles');
    },
    pathTemplate: '/vehicles',
    parameters: [],
    itemsKey: 'vehicles',
    body: 'json',
    get description() {
      return l10n.t(
        'Every vehicle deployed in the jurisdiction in the last 30 days, with properties that rarely change (type, propulsion).',
      );
    },
    paginates: true,
    hourEndpoint: false,
    nearRealtime: false,
    beta: false,
    statuses: JSON_STATUSES,
  },
  {
    api: 'mds',
    id: 'vehicle',
    get title() {
      return l10n.t('Vehicle');
    },
    pathTemplate: '/vehicles/{device_id}',
    parameters: [deviceId],
    itemsKey: 'vehicles',
    body: 'json',
    get description() {
      return l10n.t('One vehicle by device_id, whenever it was deployed: a list of one.');
    },
    paginates: false,
    hourEndpoint: false,
    nearRealtime: false,
    beta: false,
    statuses: WITH_PARAMETER_STATUSES,
  },
  {
    api: 'mds',
    id: 'vehicles_status',
    get title() {
      return l10n.t('Vehicle status');
    },
    pathTemplate: '/vehicles/status',
    parameters: [],
    itemsKey: 'vehicles_status',
    body: 'json',
    get description() {
      return l10n.t(
        'The current status (last event and telemetry) of every vehicle in the public right of way, near realtime.',
      );
    },
    paginates: true,
    hourEndpoint: false,
    nearRealtime: true,
    beta: false,
    statuses: JSON_STATUSES,
  },
  {
    api: 'mds',
    id: 'vehicle_status',
    get title() {
      return l10n.t('Status of one vehicle');
    },
    pathTemplate: '/vehicles/status/{device_id}',
    parameters: [deviceId],
    itemsKey: 'vehicles_status',
    body: 'json',
    get description() {
      return l10n.t('The current status of one vehicle by device_id: a list of one.');
    },
    paginates: false,
    hourEndpoint: false,
    nearRealtime: true,
    beta: false,
    statuses: WITH_PARAMETER_STATUSES,
  },
  {
    api: 'mds',
    id: 'trips',
    get title() {
      return l10n.t('Trips');
    },
    pathTemplate: '/trips',
    itemsKey: 'trips',
    body: 'json',
    parameters: [
      parameter(
        'end_time',
        'query',
        'utc_hour',
        () =>
          l10n.t('The UTC hour in which the trips ended: trips ending from the start of that hour to before the next.'),
        LAST_HOUR,
      ),
    ],
    get description() {
      return l10n.t(
        'The trips that ended in one UTC hour. 202 while the hour is not processed, 404 for an hour not yet past or without operations, 200 with an empty list for a processed hour without trips.',
      );
    },
    paginates: false,
    hourEndpoint: true,
    nearRealtime: false,
    beta: false,
    statuses: HOUR_STATUSES,
  },
  {
    api: 'mds',
    id: 'telemetry',
    get title() {
      return l10n.t('Telemetry');
    },
    pathTemplate: '/telemetry',
    itemsKey: 'telemetry',
    body: 'json',
    parameters: [
      parameter(
        'telemetry_time',
        'query',
        'utc_hour',
        () => l10n.t('The UTC hour of the telemetry timestamps.'),
        LAST_HOUR,
      ),
    ],
    get description() {
      return l10n.t('The telemetry (location points) of one UTC hour, trips included.');
    },
    paginates: false,
    hourEndpoint: true,
    nearRealtime: false,
    beta: false,
    statuses: [200, 400, 401, 406, 500],
  },
  {
    api: 'mds',
    id: 'events_historical',
    get title() {
      return l10n.t('Historical events');
    },
    pathTemplate: '/events/historical',
    itemsKey: 'events',
    body: 'json',
    parameters: [
      parameter('event_time', 'query', 'utc_hour', () => l10n.t('The UTC hour of the event timestamps.'), LAST_HOUR),
    ],
    get description() {
      return l10n.t(
        'The vehicle events (status changes) of one UTC hour. 202 while the hour is not processed, 404 for an hour not yet past or without operations.',
      );
    },
    paginates: false,
    hourEndpoint: true,
    nearRealtime: false,
    beta: false,
    statuses: HOUR_STATUSES,
  },
  {
    api: 'mds',
    id: 'events_recent',
    get title() {
      return l10n.t('Recent events');
    },
    pathTemplate: '/events/recent',
    itemsKey: 'events',
    body: 'json',
    parameters: [
      parameter(
        'start_time',
        'query',
        'epoch_ms',
        () => l10n.t('Events with start_time <= timestamp; at most two weeks before now.'),
        { description: () => l10n.t('one hour before now'), value: (now) => String(now - HOUR_MS) },
      ),
      parameter('end_time', 'query', 'epoch_ms', () => l10n.t('Events with timestamp < end_time; after start_time.'), {
        description: () => l10n.t('now'),
        value: (now) => String(now),
      }),
    ],
    get description() {
      return l10n.t(
        'The vehicle events of a time range within the last two weeks, near realtime. A range reaching further back is answered 400.',
      );
    },
    paginates: true,
    hourEndpoint: false,
    nearRealtime: false,
    beta: false,
    statuses: [200, 400, 401, 406, 500],
    crossCheck: recentEventsCheck,
  },
  {
    api: 'mds',
    id: 'stops',
    get title() {
      return l10n.t('Stops');
    },
    pathTemplate: '/stops',
    parameters: [],
    itemsKey: 'stops',
    body: 'json',
    get description() {
      return l10n.t('The stops (docks, stations) of a docked system, near realtime. Beta in MDS 2.0.');
    },
    paginates: false,
    hourEndpoint: false,
    nearRealtime: true,
    beta: true,
    statuses: [200, 401, 406, 500],
  },
  {
    api: 'mds',
    id: 'stop',
    get title() {
      return l10n.t('Stop');
    },
    pathTemplate: '/stops/{stop_id}',
    itemsKey: 'stops',
    body: 'json',
    parameters: [parameter('stop_id', 'path', 'uuid', () => l10n.t("The stop_id of one of the provider's stops."))],
    get description() {
      return l10n.t('One stop by stop_id: a list of one. Beta in MDS 2.0.');
    },
    paginates: false,
    hourEndpoint: false,
    nearRealtime: true,
    beta: true,
    statuses: WITH_PARAMETER_STATUSES,
  },
  {
    api: 'mds',
    id: 'reports',
    get title() {
      return l10n.t('Monthly report');
    },
    pathTemplate: '/reports/{month}.csv',
    body: 'csv',
    accept: MDS_CSV_ACCEPT,
    parameters: [
      parameter(
        'month',
        'path',
        'year_month',
        () =>
          l10n.t(
            'The month of the report; the file is named YYYY-MM.csv (mds-openapi calls this path parameter filename).',
          ),
        {
          description: () => l10n.t('the last complete UTC month'),
          value: lastCompleteUtcMonth,
        },
      ),
    ],
    get description() {
      return l10n.t(
        'The monthly report of aggregated counts (trips and riders per special group, geography and vehicle type), as CSV (text/vnd.mds+csv).',
      );
    },
    paginates: false,
    hourEndpoint: false,
    nearRealtime: false,
    beta: false,
    statuses: [200, 401, 404, 500],
  },
];

/** The known part of the MaaS API: the vehicles listing. Any other path is sent as a free request. */
export const MAAS_CATALOGUE: readonly CatalogueEndpoint[] = [
  {
    api: 'maas',
    id: 'vehicles',
    get title() {
      return l10n.t('Vehicles');
    },
    pathTemplate: '/v1alpha2/vehicles',
    parameters: [],
    itemsKey: 'vehicles',
    body: 'json',
    get description() {
      return l10n.t(
        'The vehicle listing of the MaaS API (spec 4). Its other paths and parameters are not shown by the spec: send them as free requests.',
      );
    },
    paginates: true,
    hourEndpoint: false,
    nearRealtime: false,
    beta: false,
    statuses: [],
  },
];

/** The catalogue of one API. */
export function catalogueOf(api: ApiKind): readonly CatalogueEndpoint[] {
  return api === 'mds' ? MDS_CATALOGUE : MAAS_CATALOGUE;
}
