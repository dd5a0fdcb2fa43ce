// What a tool call will do, in words, before it runs: VS Code shows it while the tool runs (`invocationMessage`) and,
// for a network tool, asks the user to confirm it (method, URL, environment and stage; what a harvest writes where).
import * as l10n from '@vscode/l10n';
import path from 'node:path';
import { errorMessage } from '../core/base';
import { normaliseBaseUrl, requestUrl } from '../core/environment';
import { isProduction, pickEnvironment } from './agentEnvironments';
import type { AgentContext } from './agentTool';
import { grpcMethodOf, grpcTargetOf, isGrpcInput } from './tools/grpcRequest';
import { requestOf } from './tools/requestInput';

/** The message shown while a tool runs, and for a network tool the confirmation asked before. */
export interface InvocationMessages {
  invocation: string;
  confirmation?: { title: string; message: string };
}

const text = (value: unknown, max = 200): string => (typeof value === 'string' ? value.slice(0, max) : '');

/** The words of a call of tool `name` with `input`; a call whose input cannot be read still gets a message. */
export async function invocationMessages(
  name: string,
  input: Record<string, unknown>,
  context: AgentContext,
): Promise<InvocationMessages> {
  switch (name) {
    case 'list_environments':
      return { invocation: l10n.t('Listing the environments (names and masked key ids only)') };
    case 'describe_endpoints':
      return { invocation: l10n.t('Reading the endpoint catalogue') };
    case 'decode_token':
      return { invocation: l10n.t('Decoding a token locally (it is not sent anywhere)') };
    case 'preview_token':
      return {
        invocation: l10n.t(
          'Previewing the claims of a token for {0} (nothing is signed)',
          text(input.environment) || l10n.t('the environment'),
        ),
      };
    case 'explain_refusal':
      return {
        invocation: l10n.t('Explaining why result {0} was refused', text(input.result_id) || l10n.t('(the last one)')),
      };
    case 'generate_client_code':
      return { invocation: l10n.t('Writing a {0} program (it holds no secret)', text(input.language)) };
    case 'describe_harvest':
    case 'run_check':
    case 'compute_metrics':
    case 'query_harvest':
      return { invocation: l10n.t('{0}: reading the harvest {1} on this computer', name, text(input.folder, 500)) };
  }
  let where: string;
  let production = false;
  try {
    const entry = await pickEnvironment(context, input.environment);
    production = isProduction(entry);
    const e = entry.environment;
    if (name === 'send_request' && isGrpcInput(input)) {
      where = l10n.t(
        'gRPC {0} on {1} of {2} (stage {3}, audience {4})',
        grpcMethodOf(input),
        grpcTargetOf(e),
        e.name,
        e.stage,
        normaliseBaseUrl(e.baseUrl, e.name),
      );
    } else if (name === 'send_request') {
      const request = requestOf(e.api, input);
      where = l10n.t('GET {0} on {1} (stage {2})', requestUrl(e, request.path, request.query), e.name, e.stage);
    } else {
      where = l10n.t('{0} (stage {1}, {2})', e.name, e.stage, normaliseBaseUrl(e.baseUrl, e.name));
    }
  } catch (err) {
    where = l10n.t('(not sent: {0})', errorMessage(err));
  }
  const refused =
    production && !context.allowProduction
      ? ` ${l10n.t('This is a production environment, which agents may not reach: it will be refused (setting mobilityApi.agents.allowProduction).')}`
      : '';
  const fresh = l10n.t(
    'Each request signs a fresh token with the bound credential; no token or key reaches the model.',
  );
  if (name === 'send_request') {
    return {
      invocation: l10n.t('Sending {0}', where),
      confirmation: {
        title: input.grpc_method !== undefined ? l10n.t('Make a gRPC call?') : l10n.t('Send a request?'),
        message: `${where}. ${fresh}${refused}`,
      },
    };
  }
  if (name === 'run_contract_tests') {
    const files = Array.isArray(input.files) ? input.files.map((f) => text(f, 300)).join(', ') : '';
    return {
      invocation: l10n.t('Running the contract tests of {0} against {1}', files, where),
      confirmation: {
        title: l10n.t('Run contract tests?'),
        message: `${l10n.t('The requests with assertions of {0}, sent to {1}.', files, where)} ${fresh}${refused}`,
      },
    };
  }
  const out = path.resolve(context.root, text(input.out, 4096));
  return {
    invocation: l10n.t(
      'Harvesting {0} from {1} to {2} into {3}',
      text(input.endpoint),
      text(input.from),
      text(input.to),
      out,
    ),
    confirmation: {
      title: l10n.t('Harvest hours?'),
      message: `${l10n.t('{0} hour by hour from {1} to {2} (UTC), from {3}, written into {4}.', text(input.endpoint), text(input.from), text(input.to), where, out)} ${fresh}${refused}`,
    },
  };
}
