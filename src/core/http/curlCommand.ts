import { shellQuote } from '../base';

/** The bearer token of a curl command: a real one (for the clipboard), or a shell variable (for a preview). */
export type CurlAuthorization = { token: string } | { shellVariable: string };

/**
 * A ready-to-run `curl` command line for a GET with these headers. `Authorization` and
 * `User-Agent` in `headers` are left out; the authorization given is added last.
 */
export function curlCommand(url: string, headers: Record<string, string>, authorization?: CurlAuthorization): string {
  const parts = ['curl', '--fail-with-body', '-sS', shellQuote(url)];
  for (const [name, value] of Object.entries(headers)) {
    if (/^(authorization|user-agent)$/i.test(name)) continue;
    parts.push('-H', shellQuote(`${name}: ${value}`));
  }
  if (authorization && 'token' in authorization)
    parts.push('-H', shellQuote(`Authorization: Bearer ${authorization.token}`));
  // Double quotes, so that the shell expands the variable.
  else if (authorization) parts.push('-H', `"Authorization: Bearer $${authorization.shellVariable}"`);
  return parts.join(' ');
}
