// The rule ids moved to core (src/core/auth/authRules.ts): the results layer explains refusals by them
// and may not import the sandbox. Kept so that sandbox files importing them need not change.
export type { AuthRule, AuthRuleId } from '../core/auth';
export { AUTH_RULE_IDS, AUTH_RULES } from '../core/auth';
