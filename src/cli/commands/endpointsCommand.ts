import { catalogueOf } from '../../core/mds';
import type { CliIo } from '../support/cliIo';
import { apiFrom, parse } from '../support/options';
import { formatCatalogue } from '../support/output';
import { printUsage } from '../support/usage';

/** `mobility-api endpoints`: the catalogue of each API, with parameters, formats and defaults. */
export function endpointsCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parse(args, { api: { type: 'string' }, json: { type: 'boolean' } });
  if (values.help) return Promise.resolve(printUsage(io));
  const apis = values.api === undefined ? (['mds', 'maas'] as const) : [apiFrom(values, true)];
  const now = Date.now();
  if (values.json) {
    const list = apis.flatMap((api) =>
      catalogueOf(api).map((e) => ({
        api: e.api,
        id: e.id,
        title: e.title,
        path: e.pathTemplate,
        itemsKey: e.itemsKey ?? null,
        body: e.body,
        paginates: e.paginates,
        hourEndpoint: e.hourEndpoint,
        beta: e.beta,
        parameters: e.parameters.map((p) => ({
          name: p.name,
          in: p.in,
          required: p.required,
          format: p.formatDescription,
          default: p.defaultValue?.(now) ?? null,
        })),
      })),
    );
    io.out(JSON.stringify(list, null, 2));
  } else {
    io.out(apis.map((api) => formatCatalogue(api, catalogueOf(api), now)).join('\n\n'));
  }
  return Promise.resolve(0);
}
