import { stateDirRuleText } from '../../core/clock';

/** `mobility-api help`: every command and option. */
export const USAGE = `mobility-api: sign tokens for the MDS Provider and MaaS APIs, read them, list vehicles, run a local sandbox.

Usage:
  mobility-api token    <credential> --aud <base-url> [--api mds|maas] [--lifetime <s>] [--aud-list]
  mobility-api decode   <jwt | -> [--json] [--public-key <file>] [--aud <base-url>]... [--strict]
  mobility-api vehicles --base-url <url> --api mds|maas <credential> [--status] [--device-id <id>]
                        [--all-pages] [--max-pages <n>] [--header 'Name: value']... [--timeout <s>] [--json]
  mobility-api request  <endpoint | /path> --base-url <url> --api mds|maas <credential> [--query name=value]...
                        [--all-pages] [--max-pages <n>] [--header 'Name: value']... [--timeout <s>] [--json]
                        [--validate] [--mode micromobility|car-share|passenger-services|delivery-robots|any]
  mobility-api send     <file.http> [--request <name | n>] --base-url <url> --api mds|maas <credential> [request options]
                        a GRPC request: [--grpc-target <host:port>] ({{grpcTarget}}) [--plaintext | --ca-file <pem>],
                        its schema from its "proto <" lines (relative to the file) or server reflection
  mobility-api code     python|typescript|go|java|shell <endpoint | /path | file.http> [--request <name | n>]
                        --base-url <url> --api mds|maas <credential> [--query name=value]... [--header 'Name: value']...
                        one complete program that signs a fresh token for every request; it reads the key file from
                        MOBILITY_API_KEY_FILE and the key id from MOBILITY_API_KEY_ID (never written into it)
  mobility-api code     python|typescript --grpc <package.Service/Method> --target <host:port>
                        --proto <file>... [--import-path <dir>]... | --protoset <file>
                        [--plaintext | --ca-file <pem>] [--data '<json>' | @file | -]
                        [--metadata 'name: value']... --aud <base-url> <credential>
                        the same for one gRPC call (grpcio, @grpc/grpc-js): a fresh token in the metadata of every call
  mobility-api harvest  trips|events|telemetry[,…] --from <hour> --to <hour> --out <dir> --base-url <url> <credential>
                        [--snapshot] [--validate] [--mode <mode>] [--max-202-attempts <n>] [--max-202-wait <s>] [--max-retries <n>] [--json]
                        one NDJSON file per UTC hour + manifest.json; run again to resume (exit 1: hours missing);
                        several endpoints (trips,events,telemetry): one subfolder each, <dir>/trips, <dir>/events, <dir>/telemetry;
                        --snapshot: every page of /vehicles and /vehicles/status at the end of the run, into <dir>/snapshot/,
                        and the monthly /reports/YYYY-MM.csv of the months harvested, into <dir>/snapshot/reports/
  mobility-api sql      <harvest folder> "<query>" [--json | --csv] [--out <file.csv|.json|.parquet>] [--timeout <s>]
                        [--geographies <geographies.json | URL of /geographies> [<credential>]]
                        one read-only SQL query (DuckDB) over the views trips, events, telemetry, vehicles, vehicles_status,
                        typed by the MDS 2.0 models, each item once; --timeout: stop it after that many seconds;
                        --geographies: an MDS Geography document; trips (start, end), events and telemetry assigned to every
                        geography containing them: tables geographies, trips_geographies, events_geographies, telemetry_geographies
                        sql, check, metrics, parquet: --memory-limit <size> (DuckDB's, default 256MB; beyond it, it spills to disk),
                        --temp-limit <size> (the most it spills, default 20GB); Ctrl-C removes the temporary folder
  mobility-api check    <harvest folder> [--rule <code>]... [--threshold <name>=<value>]... [--mode <mode>] [--json] [--junit <file>]
                        [--timezone <IANA zone>] [--geographies <file | URL>]
                        data-quality rules between items (event sequence, trip events, duplicates, telemetry gaps, teleports,
                        units, phantom trips, hour coverage; with a snapshot: status vs events, registry, and with --timezone
                        reports-vs-trips: the monthly reports against the trips); exit 1: an error finding
  mobility-api metrics  <harvest folder> --measures <m,…> --interval <PT15M…P1M> [--timezone <zone>]
                        [--dimensions provider_id,vehicle_type,geography_id] [--geographies <file | URL> [<credential>]]
                        [--k <n>] [--json] [--avg-of <duration>]
                        [--deployed-states <s,…>] [--stale-after-hours <h>] [--min-trip-seconds <s>] [--max-trip-seconds <s>]
                        the OMF metrics of MDS 2.0.2 (docs/metrics.md); --json: the Metrics Query API's response
  mobility-api metrics  <harvest folder> [--by vehicle_type|propulsion_type|provider_id] [--json]
                        the fleet summary: per hour, vehicles in the PROW at the hour's end (by state), trips started and
                        ended, median and p90 trip duration and distance, telemetry points; per day, trips per vehicle seen
  mobility-api parquet  <harvest folder> [--out <dir>] [--partition day|hour] [--json]
                        the harvest as Parquet (zstd), one file per day: endpoint=<e>/date=<day>/, hour a column
                        (default --out <folder>/parquet); MDS times as UTC timestamps;
                        --partition hour: endpoint=<e>/date=<day>/hour=<h>/ (24 times more files, slower to read)
  mobility-api endpoints [--api mds|maas] [--json]     the MDS 2.0 catalogue: endpoints, parameters, formats, defaults
  mobility-api validate <file | -> [--endpoint <id>] [--mode <mode>] [--json]
                        check a saved response against the official MDS 2.0 schemas (exit 1: does not conform)
  mobility-api sandbox  [--port <n>] [--fleet <n>] [--page-size <n>] [--trust <file>]... [--demo-dir <dir>] [--json] [--log] [--grade]
                        [--grpc-port <n>] [--grpc-reflection v1|v1alpha|both|none] [--grpc-reflection-auth] [--data-faults all|<rule>,...]
                        --log: every answered request on stderr (method, path, status, a refusal's rule and masked kid; JSON lines with --json)
                        --grade: grade your client against spec 5; the report card at GET /_sandbox/report and on stdout when stopped
                        gRPC: each environment on its own port (--grpc-port: the first, then +1, +2; default free ports);
                        reflection answers without a token unless --grpc-reflection-auth
                        --data-faults: put faults of the check rules (all, or ids such as units,teleport) into the world, REST and
                        gRPC alike; every busy hour holds each kind; GET /_sandbox/data-faults?from=<hour>&to=<hour> lists them
  mobility-api grpc list     --target <host:port> | --proto <file>... [--import-path <dir>]... | --protoset <file>
                             [--plaintext] [--ca-file <pem>] [--aud <base-url> <credential>] [--json]
                             [--protoset-out <file>]  the schema (of reflection, say) as a descriptor set, for code --grpc
  mobility-api grpc describe <symbol> [--template] (schema and target options as for list)
  mobility-api grpc call     <package.Service/Method> --target <host:port> --aud <base-url> <credential>
                             [--data '<json>' | --data @file | --data -] [--metadata 'name: value']... [--deadline <s>]
                             [--plaintext] [--ca-file <pem>] [--proto <file>]... [--protoset <file>] [--send-authorization] [--json]
                             [--max-message-size <size, e.g. 16MB>] [--refresh-schema]
                        schema by server reflection (v1, else v1alpha) unless --proto/--protoset, kept in the state
                        folder for 10 minutes per target (--refresh-schema asks the server again); every call and
                        reflection stream carries a fresh token; --plaintext only to this computer; each answer message
                        is printed as it arrives (--json: one document, written as it goes); messages in the proto3 JSON
                        mapping; Ctrl-C prints what arrived and exits 130; exit 1 unless OK
  mobility-api test     <file.http | folder>... --base-url <url> [--api mds|maas] [<credential>] [--env-file <file> | --dotenv <file>]
                        [--filter <name>] [--bail] [--all] [--junit <report.xml>] [--json] [--timeout <s>]
                        [--grpc-target <host:port> [--plaintext | --ca-file <pem>]]
                        every request with assertions (?? status == 200, ?? mds conformance, ?? token accepted…;
                        GRPC requests: ?? status == OK, ?? messages > 0, ?? body <path> on each answer message;
                        --all: every request), in file order, a fresh token each; exit 1: an assertion failed,
                        2: bad input. The credential may come from MOBILITY_API_KEY_FILE, MOBILITY_API_KEY_ID,
                        MOBILITY_API_ISSUER and MOBILITY_API_CREDENTIAL_TYPE instead of flags
  mobility-api mcp      [--base-url <url> --api mds|maas [--stage <name>] [<credential>]] [--allow-network] [--allow-production]
                        [--precise-locations] [--grpc-target <host:port> [--plaintext | --ca-file <pem>]
                        [--proto <file>... [--import-path <dir>...] | --protoset <file>]]
                        the agent tools as an MCP server over stdio (docs/agents.md); read-only unless --allow-network
                        (send_request, run_contract_tests, harvest_hours); --stage production needs --allow-production;
                        the credential as for test (flags or MOBILITY_API_KEY_FILE...); never returns a key, token or kid;
                        --grpc-target lets send_request call gRPC methods (schema by reflection, or --proto/--protoset)
  mobility-api demo     start a sandbox, sign a token with its demo credential, list vehicles, stop
  mobility-api --version                             the CLI's version; mobility-api <command> --help: that command's usage

<credential> is one of:
  --private-key <pem|jwk file> --kid <id> --iss <email> [--type external-org|iam]
  --key-file <service-account.json>
  --credential <demo-credential.json>        (as written by \`mobility-api sandbox\`)

Common options:
  --header 'Name: value'    an extra request header; an Authorization header is refused: a fresh token is signed
                            for every request (spec 5.1 rule 4)
  --send-authorization-as-is  send the Authorization of --header (or of the request file, for send) as written,
                            instead of a fresh token, on purpose (a server refuses a token it has seen before)
  --lifetime <s>            token lifetime, 60..3600 (default 300)
  --precision seconds|milliseconds   iat precision (default seconds: at most one token per key per second)
  --state-dir <dir>         where the per-key issue clock is kept (default: ${stateDirRuleText()})
  --external-org-domain, --iam-domain, --service-account-domain <domain>
                            e-mail domains that identify the credential types (repeatable; also the
                            environment variables MOBILITY_API_EXTERNAL_ORG_DOMAINS, ..._IAM_DOMAINS,
                            ..._SERVICE_ACCOUNT_DOMAINS, comma-separated)
`;

/** Commands whose usage names `<credential>` or a request option: their help ends with what those are. */
const CREDENTIAL_PART = /^<credential> is one of:/m;

/**
 * The usage of one command: its lines of USAGE (a line `  mobility-api <command> …` and the lines indented under it),
 * then the credential and common options when it takes them. The whole usage for a command it does not know.
 */
export function usageOf(command: string): string {
  const lines = USAGE.split('\n');
  const start = new RegExp(`^ {2}mobility-api ${command.replace(/[^\w-]/g, '')}\\b`);
  const own: string[] = [];
  let inside = false;
  for (const line of lines) {
    if (/^ {2}mobility-api /.test(line)) inside = start.test(line);
    else if (!/^ {3,}\S/.test(line)) inside = false;
    if (inside) own.push(line);
  }
  if (own.length === 0) return USAGE;
  const tail = CREDENTIAL_PART.exec(USAGE);
  const takesCredential = own.some((l) => /<credential>|--base-url|--aud /.test(l));
  return [
    `Usage of mobility-api ${command} (every command: mobility-api help):`,
    '',
    ...own,
    ...(takesCredential && tail ? ['', USAGE.slice(tail.index).trimEnd()] : []),
  ].join('\n');
}

/** Prints the usage for `--help`: of `command` when given, else the whole CLI's; exit code 0. */
export function printUsage(io: { out: (text: string) => void }, command?: string): number {
  io.out(command === undefined ? USAGE : usageOf(command));
  return 0;
}
