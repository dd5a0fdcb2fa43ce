/** Quotes one argument for a POSIX shell: single quotes, with embedded ones closed and escaped. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A ready-to-run `curl` command line for a GET with these headers. */
export function curlCommand(url: string, headers: Record<string, string>): string {
  const parts = ['curl', '--silent', '--show-error', '--fail-with-body'];
  for (const [name, value] of Object.entries(headers)) parts.push('-H', shellQuote(`${name}: ${value}`));
  parts.push(shellQuote(url));
  return parts.join(' ');
}
