// The agent tools in VS Code (dist/agentTools.js, loaded on the first call): the AgentContext over the extension's
// services (environments, credentials from SecretStorage, the shared clock), each call's words and confirmation, and
// the answer: scrubbed JSON for the model; a request's result also opened in the results panel.
import os from 'node:os';
import * as vscode from 'vscode';
import { AgentHistory } from '../../agent/agentHistory';
import type { AgentContext } from '../../agent/agentTool';
import { runAgentTool } from '../../agent/agentTools';
import { invocationMessages } from '../../agent/invocationMessages';
import type { CommandDeps } from '../platform/commandDeps';

/** The tools' side of the extension: one context (and one history of results) per window. */
export function createAgentToolsFeature(deps: CommandDeps) {
  const context: AgentContext = {
    environments: async () =>
      Promise.all(
        deps.environments.all().map(async (environment) => ({
          environment,
          credentialName: (await deps.credentials.boundTo(environment.id))?.label,
        })),
      ),
    credential: async (id) => {
      const info = await deps.credentials.boundTo(id);
      return info ? deps.credentials.credential(info.id) : undefined;
    },
    signing: () => ({ issuer: deps.clients.issuer, queue: deps.clients.queue }),
    history: new AgentHistory(),
    // Every network call is confirmed by the user (the manifest's tools, prepareInvocation's confirmation).
    allowNetwork: true,
    get allowProduction() {
      return vscode.workspace.getConfiguration('mobilityApi').get<boolean>('agents.allowProduction', false);
    },
    root: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? os.homedir(),
    // gRPC: the window's channels and schemas (dist/grpc.js, loaded on first use), signed as the tree's calls are.
    grpc: {
      call: (environment, credential, request) =>
        deps.grpc.call(environment, deps.grpc.auth(environment, credential), request),
    },
    onResult: (entry) => {
      const title = vscode.l10n.t('Agent: {0}', entry.target);
      if (entry.grpc)
        return deps.results.showGrpcResult({
          environment: entry.environment,
          result: entry.grpc,
          title,
          target: entry.environment.grpc?.target ?? '',
          reveal: false,
        });
      return deps.results.showResult({
        environment: entry.environment,
        result: entry.result,
        title,
        refusal: { credentialType: entry.credentialType },
        reveal: false,
      });
    },
  };
  return {
    async prepare(
      name: string,
      input: Record<string, unknown>,
      _token: vscode.CancellationToken,
    ): Promise<vscode.PreparedToolInvocation> {
      const words = await invocationMessages(name, input ?? {}, context);
      return {
        invocationMessage: words.invocation,
        ...(words.confirmation
          ? {
              confirmationMessages: {
                title: words.confirmation.title,
                message: new vscode.MarkdownString().appendText(words.confirmation.message),
              },
            }
          : {}),
      };
    },
    async invoke(
      name: string,
      input: Record<string, unknown>,
      token: vscode.CancellationToken,
    ): Promise<vscode.LanguageModelToolResult> {
      const stop = new AbortController();
      const cancelled = token.onCancellationRequested(() => stop.abort());
      try {
        const answer = await runAgentTool(name, input ?? {}, context, { signal: stop.signal });
        if (answer.isError) deps.log.info('agent', `${name}: ${answer.text.slice(0, 500)}`);
        return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(answer.text)]);
      } finally {
        cancelled.dispose();
      }
    },
  };
}
