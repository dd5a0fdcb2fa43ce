import type { CredentialType, IssuerDomains } from './credential';
import { CREDENTIAL_TYPES } from './credential';

/** The part after the last `@`, lower-cased; undefined when the text is not `local@domain`. */
export function domainOf(email: string): string | undefined {
  const at = email.lastIndexOf('@');
  if (at <= 0 || at === email.length - 1) return undefined;
  return email
    .slice(at + 1)
    .trim()
    .toLowerCase();
}

/**
 * The credential type whose configured domain list holds the e-mail's domain (spec 5.2), or
 * undefined when no list holds it. Domains match exactly, case-insensitively.
 */
export function typeOfIssuer(email: string, domains: IssuerDomains): CredentialType | undefined {
  const domain = domainOf(email);
  if (!domain) return undefined;
  return CREDENTIAL_TYPES.find((t) => domains[t].some((d) => d.trim().toLowerCase() === domain));
}
