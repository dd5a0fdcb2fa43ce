// The harvest notebook's renderer (package.json `notebookRenderer` "mobilityApi.sqlAnswer"): the ES module VS Code
// loads into a notebook's output page, built by esbuild.js as dist/notebookRenderer.js. It renders outputs of mime
// type SQL_ANSWER_MIME (a SQL cell's answer) as the results panel's table with a chart (sqlAnswerView.ts), and asks
// the extension through the renderer messaging to save exports. Its stylesheets are bundled as text and put into
// each output's element: the output page is shared with other renderers, so every rule is scoped. VS Code's display
// language and our translations come from the extension too ('l10n?'), as a renderer cannot read them.
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import * as l10n from '@vscode/l10n';
import { isRecord } from '../shared/isRecord';
import { configureL10n } from '../shared/l10n';
import { parseSqlAnswer } from '../shared/sqlAnswer';
import { clear, h } from './dom';
import gridCss from './dataGrid.css';
import rendererCss from './notebookRenderer.css';
import mapCss from './map/map.css';
import { SqlAnswerView } from './sections/sqlAnswerView';

/** The parts of VS Code's renderer API (the `vscode-notebook-renderer` types) this renderer uses. */
interface OutputItem {
  readonly id: string;
  readonly mime: string;
  json(): unknown;
}
interface RendererContext {
  /** Present when the renderer may message the extension (`requiresMessaging`) and the extension is there. */
  postMessage?(message: unknown): void;
  onDidReceiveMessage?(listener: (message: unknown) => void): { dispose(): void };
}
interface RendererApi {
  renderOutputItem(item: OutputItem, element: HTMLElement): void;
  disposeOutputItem(id?: string): void;
}

interface Output {
  item: OutputItem;
  element: HTMLElement;
  view?: SqlAnswerView;
}

export function activate(context: RendererContext): RendererApi {
  const outputs = new Map<string, Output>();
  const post = context.postMessage ? (message: unknown) => context.postMessage?.(message) : undefined;
  let translated = false;

  function render(output: Output): void {
    const { item, element } = output;
    output.view = undefined;
    clear(element);
    element.append(h('style', null, gridCss, rendererCss, mapCss));
    const answer = parseSqlAnswer(item.json());
    if (!answer) {
      element.append(
        h(
          'p',
          { class: 'mae-sql error-text' },
          l10n.t('This output is not an answer of the harvest notebook: run the cell again.'),
        ),
      );
      return;
    }
    output.view = new SqlAnswerView(answer, post);
    element.append(output.view.element);
    output.view.show();
  }

  context.onDidReceiveMessage?.((message) => {
    // VS Code's display language and our translations, which a renderer cannot read itself: outputs already shown are
    // shown again in it (this comes a moment after the first output).
    if (isRecord(message) && message.type === 'l10n' && !translated) {
      translated = true;
      const contents = isRecord(message.contents)
        ? Object.fromEntries(
            Object.entries(message.contents).filter((e): e is [string, string] => typeof e[1] === 'string'),
          )
        : undefined;
      configureL10n({ contents, displayLanguage: typeof message.language === 'string' ? message.language : undefined });
      for (const output of outputs.values()) render(output);
      return;
    }
    for (const output of outputs.values()) output.view?.onHostMessage(message);
  });
  context.postMessage?.({ type: 'l10n?' });

  return {
    renderOutputItem(item, element) {
      const output = { item, element };
      outputs.set(item.id, output);
      render(output);
    },
    disposeOutputItem(id) {
      if (id === undefined) outputs.clear();
      else outputs.delete(id);
    },
  };
}
