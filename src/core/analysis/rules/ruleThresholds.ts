/**
 * The thresholds of the rules in this folder (ranges, registry, times, stale vehicles, the window's edges), merged
 * into `CheckThresholds` and `DEFAULT_THRESHOLDS` of checkRules.ts: each is a named setting (`--threshold
 * <name>=<value>`, `mobilityApi.analysis.thresholds` in VS Code).
 */
export interface EdgeRuleThresholds {
  /** MDS-RANGE-AREA: how far (degrees) a point may lie outside the box of the middle half of the harvest's points. */
  areaMarginDegrees: number;
  /** MDS-RANGE-ACCURACY: the largest plausible horizontal or vertical accuracy, in metres. */
  maxAccuracyMeters: number;
  /** MDS-PUBLICATION-LATE: the 95th percentile of an hour's publication latency above which the hour is late, in hours. */
  publicationP95Hours: number;
  /** MDS-HOUR-PENDING-LONG: how long after its end an hour may still answer 202, in hours. */
  pendingHours: number;
  /** MDS-VEHICLE-STALE: how long a vehicle in the public right-of-way may go without an event, in hours. */
  staleHours: number;
}

export const EDGE_RULE_THRESHOLDS: EdgeRuleThresholds = {
  areaMarginDegrees: 1,
  maxAccuracyMeters: 1000,
  publicationP95Hours: 24,
  pendingHours: 24,
  staleHours: 48,
};
