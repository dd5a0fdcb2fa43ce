/**
 * Which unit an MDS time is written in (MDS 2.0.2 general-information.md, Timestamps: "integer milliseconds since
 * Unix epoch"). One definition for every rule: a time below MS_FLOOR is seconds (before 1973 in ms), at or above
 * US_FLOOR microseconds (after the year 5138 in ms), at or above NS_FLOOR nanoseconds.
 */
export const MS_FLOOR = 100_000_000_000;
export const US_FLOOR = 100_000_000_000_000;
export const NS_FLOOR = 100_000_000_000_000_000;

/** A SQL condition: the time is in milliseconds. Rules that compare times leave the others out (MDS-RANGE-TIMESTAMP-UNIT reports them). */
export const inMsSql = (time: string): string => `(${time} >= ${MS_FLOOR} AND ${time} < ${US_FLOOR})`;
