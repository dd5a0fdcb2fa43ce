// The names of the agent tools, without their code: what VS Code's activation registers (each tool's code is loaded
// on its first call, from dist/agentTools.js). test/unit/agentManifest.test.ts keeps it equal to AGENT_TOOLS and to
// package.json's languageModelTools.

/** Every tool's name, in the order of AGENT_TOOLS. */
export const AGENT_TOOL_NAMES = [
  'list_environments',
  'describe_endpoints',
  'decode_token',
  'preview_token',
  'explain_refusal',
  'generate_client_code',
  'describe_harvest',
  'run_check',
  'compute_metrics',
  'query_harvest',
  'send_request',
  'run_contract_tests',
  'harvest_hours',
] as const;

export type AgentToolName = (typeof AGENT_TOOL_NAMES)[number];
