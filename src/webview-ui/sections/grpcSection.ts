// A gRPC call's answer in the results panel: the call (target, method, status, timing), the google.rpc.Status
// details, the metadata both ways and the token's decoded claims, above the same Body tabs as a REST answer.
// Every value from the server is set as text through h(); the grpcurl command never comes here.
import * as l10n from '@vscode/l10n';
import { formatCount } from '../../shared/format';
import type { GrpcCallView } from '../../shared/grpcViews';
import type { ListingResultView } from '../../shared/listingViews';
import type { Child } from '../dom';
import { button, clear, dataText, formatMs, h } from '../dom';
import type { PanelContext } from '../panelContext';
import { collapsible } from '../panelContext';
import { grpcStatusBadge, headersTable, kv } from './sectionParts';
import { renderToken } from './tokenSection';

/** The header's buttons of a gRPC answer: Copy as grpcurl and Run again (the REST-only ones do not apply). */
export function grpcActions(r: ListingResultView, call: GrpcCallView, ctx: PanelContext): HTMLElement[] {
  const actions: HTMLElement[] = [];
  if (call.canCopyGrpcurl)
    actions.push(
      button(l10n.t('Copy as grpcurl'), () => ctx.post({ type: 'copyGrpcurl', resultId: r.id }), {
        'data-testid': 'copy-grpcurl',
        title: l10n.t('Copies a grpcurl command with a newly signed token (in a shell variable on its own line)'),
      }),
    );
  if (call.canRunAgain)
    actions.push(
      button(l10n.t('Run again'), () => ctx.post({ type: 'runAgain' }), {
        secondary: true,
        'data-testid': 'run-again',
      }),
    );
  return actions;
}

/** The call: where it went, what it was, how it ended and how long it took. */
function renderCall(call: GrpcCallView): HTMLElement {
  const t = call.timings;
  const rows: [string, Child][] = [
    [
      l10n.t('Status'),
      h(
        'span',
        { 'data-testid': 'grpc-status' },
        grpcStatusBadge(call.status.name, call.status.ok),
        h('span', { class: 'muted' }, ` (${call.status.code})`),
        call.status.message && call.status.message.toUpperCase() !== call.status.name
          ? h(
              'span',
              { class: call.status.ok ? undefined : 'error-text', 'data-testid': 'grpc-status-message' },
              ` ${call.status.message}`,
            )
          : null,
      ),
    ],
    [l10n.t('Meaning'), call.status.meaning],
    [l10n.t('Target'), h('code', { translate: 'no', 'data-testid': 'grpc-target' }, call.target)],
    [
      l10n.t('Method'),
      h(
        'span',
        null,
        h('code', { translate: 'no', 'data-testid': 'grpc-method' }, call.method),
        h('span', { class: 'muted' }, ` · ${call.kind}`),
      ),
    ],
    [
      l10n.t('Messages'),
      h(
        'span',
        null,
        dataText(call.inputType),
        ' → ',
        dataText(call.outputType),
        h('span', { class: 'muted' }, l10n.t(' · {0} received', formatCount(call.messageCount))),
      ),
    ],
    [
      l10n.t('Time'),
      h(
        'span',
        { 'data-testid': 'grpc-time' },
        formatMs(t.totalMs),
        h(
          'span',
          { class: 'muted' },
          l10n.t(' (waited for key {0}, signing {1})', formatMs(t.queuedMs), formatMs(t.signMs)),
        ),
      ),
    ],
  ];
  return h(
    'div',
    { class: 'section-body', 'data-testid': 'grpc-call' },
    kv(
      rows.filter(([, v]) => v !== ''),
      'grpc-facts',
    ),
  );
}

/** The google.rpc.Status details, as JSON text. */
function renderDetails(call: GrpcCallView): HTMLElement {
  return h(
    'div',
    { class: 'section-body' },
    call.details.length
      ? h('pre', { class: 'code', 'data-testid': 'grpc-details' }, JSON.stringify(call.details, null, 2))
      : h(
          'p',
          { class: 'muted', 'data-testid': 'grpc-details' },
          l10n.t('The status carried no details (no grpc-status-details-bin trailer).'),
        ),
  );
}

/** The metadata both ways: what the server answered with (headers, trailers) and what was sent. */
function renderMetadata(call: GrpcCallView): HTMLElement {
  return h(
    'div',
    { class: 'section-body', 'data-testid': 'grpc-metadata' },
    h('h4', null, l10n.t('Response headers')),
    headersTable(call.headers, 'grpc-headers'),
    h('h4', null, l10n.t('Trailers')),
    headersTable(call.trailers, 'grpc-trailers'),
    h('h4', null, l10n.t('Metadata sent')),
    headersTable(call.requestMetadata, 'grpc-request-metadata'),
  );
}

/** The sections of a gRPC answer between its header (and error) and its Body. */
export function renderGrpcSections(r: ListingResultView, call: GrpcCallView, ctx: PanelContext): HTMLElement[] {
  const page = r.pages[0];
  const failed = !call.status.ok;
  const token = page?.token
    ? renderToken(page.token, 0, {
        copyPayload: (i) => ctx.post({ type: 'copyPayload', resultId: r.id, pageIndex: i }),
      })
    : h(
        'p',
        { class: 'muted' },
        l10n.t('The call carried no token of this extension (your own authorization metadata, or none).'),
      );
  return [
    collapsible(l10n.t('Call'), renderCall(call), true, 'section-grpc-call'),
    collapsible(
      call.details.length ? l10n.t('Status details ({0})', formatCount(call.details.length)) : l10n.t('Status details'),
      renderDetails(call),
      failed && call.details.length > 0,
      'section-grpc-details',
    ),
    collapsible(l10n.t('Metadata'), renderMetadata(call), failed, 'section-grpc-metadata'),
    collapsible(
      l10n.t('Token'),
      h('div', null, token),
      failed && call.status.name === 'UNAUTHENTICATED',
      'section-token',
    ),
  ];
}

/**
 * A long stream's part chooser: which of its messages the JSON and Raw views show (those of part `index` of `pages`),
 * and the buttons to the parts before and after; `go` shows another part.
 */
export function renderGrpcParts(
  nav: HTMLElement,
  pages: ListingResultView['pages'],
  index: number,
  go: (to: number) => void,
): void {
  const first = pages.slice(0, index).reduce((sum, p) => sum + p.itemCount, 0);
  const total = pages.reduce((sum, p) => sum + p.itemCount, 0);
  const previous = button(l10n.t('Previous messages'), () => go(index - 1), {
    secondary: true,
    'data-testid': 'grpc-part-previous',
  });
  const next = button(l10n.t('Next messages'), () => go(index + 1), {
    secondary: true,
    'data-testid': 'grpc-part-next',
  });
  previous.toggleAttribute('disabled', index === 0);
  next.toggleAttribute('disabled', index >= pages.length - 1);
  clear(nav);
  nav.append(
    h(
      'span',
      { class: 'muted', 'data-testid': 'grpc-part' },
      l10n.t(
        'JSON and Raw show messages {0} to {1} of {2}',
        formatCount(first + 1),
        formatCount(first + (pages[index]?.itemCount ?? 0)),
        formatCount(total),
      ),
    ),
    previous,
    next,
  );
}
