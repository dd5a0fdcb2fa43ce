// What every result view shares: the environment it came from, and the summary that is persisted (webview
// state) and shown after a reload. Types only; imported by both bundles.

export interface EnvironmentView {
  id: string;
  name: string;
  api: 'mds' | 'maas';
  apiLabel: string;
  stage: string;
  baseUrl: string;
}

/** What a result is: a listing (any request's answer), a request with no answer, a token, two tokens, a harvest. */
export type ResultKind = 'listing' | 'requestError' | 'token' | 'compare' | 'harvest' | 'analysis';

/** What is persisted (webview state) and shown after a reload: no rows, no token. */
export interface ResultSummary {
  kind: ResultKind;
  title: string;
  /** One line: "200 OK · 1,000 vehicles · 2 pages". */
  line: string;
  createdAt: number;
  environmentId?: string;
  environmentName?: string;
  /** A listing can be fetched again with a fresh token (command `mobilityApi.listVehicles` or `.vehicleStatus`). */
  canRunAgain: boolean;
  /** Which listing "Run again" asks for. */
  rerun?: 'vehicles' | 'status';
  url?: string;
  /** A harvest's folder and range: after a reload the host reads the folder's manifest and shows the heatmap again. */
  harvest?: HarvestOrigin;
  /** A data-quality report's folder: after a reload the host analyses it again (its findings are not stored). */
  analysis?: { folder: string };
}

/** Where a harvest's heatmap comes from: its environment (as shown), endpoint, folder and range of UTC hours. */
export interface HarvestOrigin {
  environment: EnvironmentView;
  /** `trips`, `telemetry` or `events_historical` (the host checks it). */
  endpoint: string;
  outDir: string;
  /** The whole harvest's folder when `outDir` is one endpoint's subfolder of it (several endpoints fetched at once, a snapshot beside them): what Analyze Harvest opens. */
  harvestFolder?: string;
  /** First and last hour, `YYYY-MM-DDTHH`. */
  from: string;
  to: string;
}
