// The read-only tools over a harvest folder on this computer: what it holds, its data-quality findings, the fleet
// metrics, and read-only SQL. Aggregates first: raw rows are capped, and the scrubber rounds their coordinates.
import * as l10n from '@vscode/l10n';
import path from 'node:path';
import { AnalysisSession, CHECK_RULE_IDS, METRICS_GROUPS, readHarvestSource, runChecks } from '../../core/analysis';
import type { HarvestSource, MetricsGroup } from '../../core/analysis';
import { runMetrics } from '../../core/analysis';
import type { AgentContext, AgentTool, ToolCall } from '../agentTool';
import { LOCAL_READ_ONLY } from '../agentTool';

const FOLDER_INPUT = {
  type: 'string',
  minLength: 1,
  maxLength: 4096,
  description:
    'The harvest folder (the one harvest_hours or `mobility-api harvest --out` wrote, with manifest.json), absolute or relative to the workspace.',
};
/** Raw rows an answer may hold at most, whatever the input asks. */
export const MAX_ROWS = 200;

function folderOf(context: AgentContext, input: Record<string, unknown>): string {
  return path.resolve(context.root, String(input.folder));
}

/** Opens a session of the folder, runs `work`, closes it (its temporary folder removed), stopping on the call's signal. */
async function withSession<T>(
  source: HarvestSource,
  call: ToolCall,
  work: (session: AnalysisSession) => Promise<T>,
): Promise<T> {
  call.progress?.(0, 2, l10n.t('Reading the harvest into DuckDB…'));
  const session = await AnalysisSession.open(source, {}, call.signal);
  try {
    call.progress?.(1, 2, l10n.t('Querying…'));
    const answer = await work(session);
    call.progress?.(2, 2, l10n.t('Done.'));
    return answer;
  } finally {
    session.close();
  }
}

function notes(source: HarvestSource): string[] {
  return source.parts
    .filter((p) => p.inUse)
    .map((p) => l10n.t('A harvest is still writing {0}: the answer covers the hours it had finished.', p.dir));
}

const describeHarvest: AgentTool = {
  name: 'describe_harvest',
  title: 'Describe a harvest',
  description:
    'What a harvest folder holds, from its manifests only (no item is read): the endpoints, the base URL, the hour window, per hour status (items, empty, not found, still 202, failed) and item counts, and whether a /vehicles snapshot was taken. Start here before run_check, compute_metrics or query_harvest.',
  inputSchema: {
    type: 'object',
    properties: { folder: FOLDER_INPUT },
    required: ['folder'],
    additionalProperties: false,
  },
  annotations: LOCAL_READ_ONLY,
  network: false,
  async run(input, context) {
    const source = await readHarvestSource(folderOf(context, input));
    return {
      folder: source.folder,
      window: source.window,
      format: source.parquet ? 'parquet' : 'ndjson',
      parts: source.parts.map((p) => {
        const statuses: Record<string, number> = {};
        for (const record of Object.values(p.manifest.hours))
          statuses[record.status] = (statuses[record.status] ?? 0) + 1;
        return {
          table: p.table,
          endpoint: p.manifest.endpoint,
          baseUrl: p.manifest.baseUrl,
          from: p.manifest.from,
          to: p.manifest.to,
          hoursByStatus: statuses,
          items: p.hours.reduce((n, h) => n + h.items, 0),
          busiestHours: [...p.hours].sort((a, b) => b.items - a.items).slice(0, 5),
          validatedMode: p.manifest.validatedMode ?? null,
          stillWriting: p.inUse,
        };
      }),
      snapshot: source.snapshot
        ? {
            fetchedAt: source.snapshot.manifest.fetchedAt,
            vehicles: source.snapshot.manifest.lists.vehicles.items,
            vehicles_status: source.snapshot.manifest.lists.vehicles_status.items,
          }
        : null,
      checkRules: CHECK_RULE_IDS,
    };
  },
};

const runCheck: AgentTool = {
  name: 'run_check',
  title: 'Check a harvest',
  description:
    'Runs the data-quality rules over a harvest folder (event sequences by the MDS state machines, trips against telemetry, hour coverage…): per rule its severity, basis, number of findings and the first few findings. May take a while on a big folder; reports progress.',
  inputSchema: {
    type: 'object',
    properties: {
      folder: FOLDER_INPUT,
      rules: {
        type: 'array',
        items: { type: 'string', enum: [...CHECK_RULE_IDS] },
        description: 'Only these rules; every rule when left out.',
      },
      findings_per_rule: {
        type: 'integer',
        minimum: 0,
        maximum: 50,
        default: 5,
        description: 'How many findings of each rule to list (counts are always whole).',
      },
    },
    required: ['folder'],
    additionalProperties: false,
  },
  annotations: LOCAL_READ_ONLY,
  network: false,
  async run(input, context, call) {
    const source = await readHarvestSource(folderOf(context, input));
    const shown = typeof input.findings_per_rule === 'number' ? input.findings_per_rule : 5;
    const report = await withSession(source, call, (session) =>
      runChecks(session, (input.rules as string[] | undefined) ?? []),
    );
    return {
      folder: report.folder,
      window: report.window,
      items: report.items,
      summary: {
        errors: report.rules.filter((r) => r.severity === 'error' && r.count > 0).map((r) => r.id),
        warnings: report.rules.filter((r) => r.severity === 'warning' && r.count > 0).map((r) => r.id),
      },
      rules: report.rules.map((r) => ({
        id: r.id,
        title: r.title,
        severity: r.severity,
        basis: r.basis,
        count: r.count,
        findings: r.findings.slice(0, shown),
      })),
      skipped: report.skipped,
      notes: notes(source),
    };
  },
};

const computeMetrics: AgentTool = {
  name: 'compute_metrics',
  title: 'Compute fleet metrics',
  description:
    'Fleet metrics of a harvest folder: per hour the vehicles in the public right-of-way, trips started and ended, trip duration and distance (median, p90), telemetry points; per day trips per vehicle. Optionally grouped by vehicle_type, propulsion_type (these need a /vehicles snapshot) or provider_id.',
  inputSchema: {
    type: 'object',
    properties: { folder: FOLDER_INPUT, by: { type: 'string', enum: [...METRICS_GROUPS] } },
    required: ['folder'],
    additionalProperties: false,
  },
  annotations: LOCAL_READ_ONLY,
  network: false,
  async run(input, context, call) {
    const source = await readHarvestSource(folderOf(context, input));
    const report = await withSession(source, call, (session) =>
      runMetrics(session, input.by as MetricsGroup | undefined),
    );
    return {
      folder: report.folder,
      window: report.window,
      by: report.by ?? null,
      hours: report.hours.slice(0, MAX_ROWS),
      days: report.days.slice(0, MAX_ROWS),
      notes: notes(source),
    };
  },
};

const queryHarvest: AgentTool = {
  name: 'query_harvest',
  title: 'Query a harvest',
  description:
    'One read-only SQL query (DuckDB) over the views trips, events, telemetry, vehicles and vehicles_status of a harvest folder. Prefer aggregates (count, group by): raw rows are capped (max_rows, at most 200) and their coordinates rounded to about 100 m. Statements that write, and file access, are refused.',
  inputSchema: {
    type: 'object',
    properties: {
      folder: FOLDER_INPUT,
      sql: { type: 'string', minLength: 1, maxLength: 20000, description: 'One SELECT (or WITH … SELECT) statement.' },
      max_rows: { type: 'integer', minimum: 1, maximum: MAX_ROWS, default: 50 },
      timeout_seconds: { type: 'number', exclusiveMinimum: 0, maximum: 600, default: 60 },
    },
    required: ['folder', 'sql'],
    additionalProperties: false,
  },
  annotations: LOCAL_READ_ONLY,
  network: false,
  async run(input, context, call) {
    const source = await readHarvestSource(folderOf(context, input));
    const max = typeof input.max_rows === 'number' ? input.max_rows : 50;
    const answer = await withSession(source, call, (session) =>
      session.query(String(input.sql), typeof input.timeout_seconds === 'number' ? input.timeout_seconds : 60),
    );
    return {
      columns: answer.columns,
      rowCount: answer.rows.length,
      rows: answer.rows.slice(0, max),
      truncated: answer.rows.length > max,
      notes: notes(source),
    };
  },
};

export const HARVEST_TOOLS: readonly AgentTool[] = [describeHarvest, runCheck, computeMetrics, queryHarvest];
