import fs from 'node:fs';
import path from 'node:path';
import {
  checkJunit,
  checkTimeZone,
  findingLine,
  hasErrorFinding,
  intakeLines,
  readHarvestSource,
  runChecks,
  thresholdsOf,
} from '../../core/analysis';
import type { CheckReport } from '../../core/analysis';
import { MobilityError, errorMessage } from '../../core/base';
import type { CliIo } from '../support/cliIo';
import { memoryLimitOption, modeOf, parse } from '../support/options';
import { printUsage } from '../support/usage';
import { withAnalysisSession } from '../support/sessionSignals';
import { GEOGRAPHY_OPTIONS, geographiesFrom } from '../support/geographiesOption';

/** Findings of each rule the text report shows; --json lists every one. */
const SHOWN_PER_RULE = 5;

/**
 * `mobility-api check <folder> [--rule <id>]... [--threshold <name>=<value>]... [--json] [--junit <file>] [--timezone <IANA>]
 * [--geographies <file|URL>]`: the data-quality rules over a harvest (reports-vs-trips needs the time zone, and the
 * geographies when the reports count by geography). Exit 0 with no error finding, 1 with one, 2 for bad input.
 */
export async function checkCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(
    args,
    {
      rule: { type: 'string', multiple: true },
      threshold: { type: 'string', multiple: true },
      json: { type: 'boolean' },
      junit: { type: 'string' },
      mode: { type: 'string' },
      'memory-limit': { type: 'string' },
      'temp-limit': { type: 'string' },
      timezone: { type: 'string' },
      ...GEOGRAPHY_OPTIONS,
    },
    true,
  );
  if (values.help) return printUsage(io);
  if (positionals.length !== 1)
    throw new MobilityError(
      'USAGE',
      'check takes one harvest folder: mobility-api check <folder> [--rule <id>]... [--json].',
    );
  const thresholds = thresholdsOf(values.threshold ?? []);
  const mode = modeOf(values.mode);
  const timeZone = values.timezone === undefined ? undefined : checkTimeZone(values.timezone);
  const source = await readHarvestSource(positionals[0]);
  const geographies = await geographiesFrom(values, io);
  for (const part of source.parts)
    if (part.inUse)
      io.err(`mobility-api: a harvest is still writing ${part.dir}; the report covers the hours it had finished.`);
  return withAnalysisSession(
    io,
    source,
    { ...memoryLimitOption(values['memory-limit'], values['temp-limit']), ...(geographies ? { geographies } : {}) },
    async (session) => {
      const report = await runChecks(session, values.rule ?? [], thresholds, {
        ...(mode ? { mode } : {}),
        ...(timeZone ? { timeZone } : {}),
      });
      io.out(values.json ? JSON.stringify(report, null, 2) : formatCheckReport(report));
      if (values.junit !== undefined) writeJunit(values.junit, checkJunit(report, new Date()));
      return hasErrorFinding(report) ? 1 : 0;
    },
  );
}

function formatCheckReport(report: CheckReport): string {
  const lines = [
    `Data quality of ${report.folder}, ${report.window.start} to ${report.window.end}`,
    `Items: ${Object.entries(report.items)
      .map(([view, n]) => `${view} ${n}`)
      .join(', ')}`,
    ...intakeLines(report.intake ?? {}),
    '',
  ];
  for (const rule of report.rules) {
    const mark =
      rule.count === 0 ? 'ok  ' : rule.severity === 'error' ? 'FAIL' : rule.severity === 'warning' ? 'warn' : 'info';
    lines.push(
      `${mark}  ${rule.code} (${rule.severity}): ${rule.title}: ${rule.count === 0 ? 'no finding' : `${rule.count} finding${rule.count === 1 ? '' : 's'}`}`,
    );
    for (const f of rule.findings.slice(0, SHOWN_PER_RULE)) {
      lines.push(`        ${findingLine(f)}`);
    }
    if (rule.count > SHOWN_PER_RULE)
      lines.push(`        … and ${rule.count - SHOWN_PER_RULE} more (--json lists every one)`);
  }
  for (const s of report.skipped) lines.push(`skip  ${s.code}: ${s.why}`);
  const errors = report.rules.filter((r) => r.severity === 'error' && r.count > 0).length;
  const warnings = report.rules.filter((r) => r.severity === 'warning' && r.count > 0).length;
  lines.push(
    '',
    `${report.rules.length} rules run: ${errors} with errors, ${warnings} with warnings; ${report.skipped.length} not run.`,
  );
  return lines.join('\n');
}

/** Writes the JUnit report through a temporary file, so that a CI server never reads half of one. */
function writeJunit(file: string, text: string): void {
  const target = path.resolve(file);
  const temp = `${target}.tmp-${process.pid}`;
  try {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(temp, text);
    fs.renameSync(temp, target);
  } catch (err) {
    fs.rmSync(temp, { force: true });
    throw new MobilityError(
      'ANALYSIS_WRITE_FAILED',
      `Cannot write the --junit report ${target}: ${errorMessage(err)}. Choose a file in a folder you may write to.`,
    );
  }
}
