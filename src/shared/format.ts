// Counts, plurals and sizes as the panel, the host and the CLI print them: one place each (src/shared, so that
// the webview bundle uses the same functions).

/** `1,234`. */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** `1 vehicle`, `1,234 vehicles`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/** `512 B`, `1.5 KB`, `2.0 MB`. */
export function formatBytes(n: number): string {
  return n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`;
}
