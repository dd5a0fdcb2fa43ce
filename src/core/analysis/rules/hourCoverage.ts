/**
 * The hour-coverage rule, read from the harvest's manifests rather than by SQL: every hour of each part's range is
 * there, processed and answered, and no hour is empty between two busy ones (a likely outage).
 */
import type { CheckFinding, CheckThresholds } from '../checkRules';
import type { HarvestSource } from '../harvestSource';

/** The hour-coverage findings, read from the manifests: hours missing, still 202, failed, and empty between busy ones. */
export function hourCoverageFindings(source: HarvestSource, t: CheckThresholds): CheckFinding[] {
  const findings: CheckFinding[] = [];
  for (const part of source.parts) {
    const hours = Object.entries(part.manifest.hours);
    const first = Date.parse(`${part.manifest.from}:00:00Z`);
    const last = Date.parse(`${part.manifest.to}:00:00Z`);
    const at = (ms: number) => new Date(ms).toISOString().slice(0, 13);
    const record = new Map(hours);
    for (let ms = first; ms <= last; ms += 3_600_000) {
      const hour = at(ms);
      const r = record.get(hour);
      const time = new Date(ms).toISOString();
      if (!r)
        findings.push({
          device_id: null,
          trip_id: null,
          time,
          detail: `${part.table}: the hour ${hour} is missing from the harvest (run it again to fetch it)`,
        });
      else if (r.status === 'pending')
        findings.push({
          device_id: null,
          trip_id: null,
          time,
          detail: `${part.table}: the hour ${hour} still answered 202 (not processed yet)`,
        });
      else if (r.status === 'failed')
        findings.push({
          device_id: null,
          trip_id: null,
          time,
          detail: `${part.table}: the hour ${hour} failed: ${r.problem ?? 'no answer'}`,
        });
      else if (r.status === 'not_found')
        findings.push({ device_id: null, trip_id: null, time, detail: `${part.table}: the hour ${hour} answered 404` });
      else if (r.status === 'empty') {
        const before = record.get(at(ms - 3_600_000));
        const after = record.get(at(ms + 3_600_000));
        if ((before?.items ?? 0) >= t.busyHourItems && (after?.items ?? 0) >= t.busyHourItems) {
          findings.push({
            device_id: null,
            trip_id: null,
            time,
            detail: `${part.table}: the hour ${hour} is empty between ${before?.items} and ${after?.items} items: a likely outage`,
          });
        }
      }
    }
  }
  return findings;
}
