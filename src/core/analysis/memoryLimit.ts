/** DuckDB's memory limit for an analysis session: its default, and the sizes the CLI and the setting may give. */

/**
 * DuckDB's memory limit unless the caller gives one. Node and DuckDB's own allocations outside it took about 170 MB
 * more: `check` peaked at about 430 MB over 7 days of a 2,000-vehicle fleet, and 510 MB over those 7 days harvested 4
 * times over. At 192 MB that second harvest ran out of memory; at 512 MB the first peaked 120 MB higher and took longer.
 */
export const DEFAULT_MEMORY_LIMIT = '256MB';

/**
 * The most DuckDB may write to the session's temporary folder beyond its database file (what spills past the memory
 * limit), unless the caller gives a size: DuckDB's own default is 90 % of the free disk space. `check` over 7 days of
 * a 2,000-vehicle fleet harvested 4 times over spilled less than 1 GB.
 */
export const DEFAULT_TEMP_LIMIT = '20GB';

/** A memory limit as the CLI's --memory-limit and the setting mobilityApi.analysis.memoryLimit give it (`1GB`, `512MB`), for DuckDB; undefined unless it is a size of 64 MB or more. */
export function memoryLimitOf(text: string): string | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*$/i.exec(text);
  const units: Record<string, number> = {
    kb: 1e3,
    mb: 1e6,
    gb: 1e9,
    tb: 1e12,
    kib: 2 ** 10,
    mib: 2 ** 20,
    gib: 2 ** 30,
    tib: 2 ** 40,
  };
  if (!match || Number(match[1]) * units[match[2].toLowerCase()] < 64e6) return undefined;
  return `${match[1]}${match[2].toUpperCase().replace('IB', 'iB')}`;
}
