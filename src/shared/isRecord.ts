/** True for a plain JSON object (not null, not an array): what a parsed body or message may be read as. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
