import { shellQuote } from '../base';
import type { RestCodeProgram } from './codeRequest';
import {
  CLOCK_LOCK_REFRESH_SECONDS,
  CLOCK_LOCK_STALE_SECONDS,
  CLOCK_LOCK_WAIT_SECONDS,
  headerLines,
  itemsWord,
  KEY_FILE_VARIABLE,
  KEY_ID_VARIABLE,
  sharedClockLines,
  STATE_DIR_VARIABLE,
  WORKERS_VARIABLE,
} from './codeRequest';

/** A bash script (openssl + curl + jq), as shfmt formats it. */
export function shellProgram(program: RestCodeProgram): string {
  const { request, credential } = program;
  const serviceAccount = credential.type === 'service-account';
  const spec = serviceAccount ? '5.6' : credential.type === 'iam' ? '5.5' : '5.4';
  const header = [
    ...headerLines(program),
    '',
    ...sharedClockLines(),
    'Every worker is a process of its own, so the file is their clock too.',
    '',
    'Needs bash, openssl, curl, jq and basenc (coreutils 8.31+). Run it (from',
    'cron too: cron sets none of these variables, so set them on its line):',
    '',
    serviceAccount
      ? `    ${KEY_FILE_VARIABLE}=/path/to/service-account.json bash /path/to/mobility-api-request.sh`
      : `    ${KEY_FILE_VARIABLE}=/path/to/key.pem ${KEY_ID_VARIABLE}="$(cat /path/to/key-id)" \\`,
    ...(serviceAccount ? [] : ['        bash /path/to/mobility-api-request.sh']),
  ];
  const aud = Array.isArray(program.audience) ? '[$aud]' : '$aud';
  const key = serviceAccount ? '<(jq -r .private_key "$KEY_FILE")' : '"$KEY_FILE"';
  const claims = `{iss: $iss, ${serviceAccount ? 'sub: $iss, email: $iss, ' : ''}aud: ${aud}, iat: $iat, exp: ($iat + $life), jti: $jti}`;
  const signature =
    credential.alg === 'ES256'
      ? [
          '\t# ES256 signatures are R || S (RFC 7518 3.4); openssl writes DER, so the two integers are',
          '\t# taken out of it and padded to 32 bytes each.',
          `\tsignature=$(printf %s "$input" | openssl dgst -sha256 -sign ${key} | openssl asn1parse -inform DER |`,
          `\t\tawk -F: '/INTEGER/ { printf "%64s", $NF }' | tr ' ' 0 | basenc --base16 -d | base64url) || return 1`,
        ]
      : [`\tsignature=$(printf %s "$input" | openssl dgst -sha256 -sign ${key} | base64url) || return 1`];
  const keyFile = `${KEY_FILE_VARIABLE} ($KEY_FILE)`;
  return [
    '#!/usr/bin/env bash',
    ...header.map((l) => (l ? `# ${l}` : '#')),
    'set -euo pipefail',
    '',
    ...alignComments([
      [`BASE_URL=${shellQuote(program.baseUrl)}`, 'spec 5.3: also the audience'],
      [`LIFETIME=${program.lifetimeSeconds}`, 'spec 5.1 rule 5: 60 to 3600 seconds'],
      [
        `KEY_FILE="\${${KEY_FILE_VARIABLE}:?Set ${KEY_FILE_VARIABLE} to the ${serviceAccount ? 'service-account key file (JSON)' : 'private key PEM file'}}"`,
      ],
      ...(serviceAccount
        ? []
        : [
            [`KEY_ID="\${${KEY_ID_VARIABLE}:?Set ${KEY_ID_VARIABLE} to the key id of that key}"`],
            [`ISSUER=${shellQuote(credential.issuer ?? '')}`],
          ]),
      [`WORKERS="\${${WORKERS_VARIABLE}:-1}"`],
    ]),
    'HEADERS=(',
    ...Object.entries(request.headers).map(([name, value]) => `\t-H ${shellQuote(`${name}: ${value}`)}`),
    ')',
    '',
    '# Says what to fix, on one line, and ends the script.',
    'fail() {',
    '\techo "$1" >&2',
    '\texit 1',
    '}',
    '',
    `[[ $WORKERS =~ ^[1-9][0-9]*$ ]] || fail "Set ${WORKERS_VARIABLE} to a whole number from 1, not '$WORKERS'."`,
    `[ -r "$KEY_FILE" ] || fail "Cannot read ${keyFile}."`,
    ...(serviceAccount
      ? [
          `jq -e '.private_key and .private_key_id and .client_email' "$KEY_FILE" >/dev/null 2>&1 ||`,
          `\tfail "${keyFile} is not a service-account key file: JSON with private_key, private_key_id and client_email."`,
          'jq -r .private_key "$KEY_FILE" | openssl rsa -noout 2>/dev/null ||',
          `\tfail "${keyFile}: private_key is no RSA private key (RS256)."`,
          ...alignComments([
            ['KEY_ID=$(jq -r .private_key_id "$KEY_FILE")', "spec 5.6: the key file's private_key_id"],
            ['ISSUER=$(jq -r .client_email "$KEY_FILE")'],
          ]),
        ]
      : [
          'key_text=$(openssl pkey -in "$KEY_FILE" -noout -text 2>/dev/null) && [[ $key_text == *"ASN1 OID: prime256v1"* ]] ||',
          `\tfail "${keyFile} holds no P-256 EC private key in PEM (${credential.alg})."`,
        ]),
    '',
    '# The state folder: the first of these variables set, with the folder under it (the same in',
    '# every signer); the clock file is named by a hash, the key id being a secret (spec 5.7).',
    `for rule in ${STATE_DIR_VARIABLE}: XDG_STATE_HOME:/mobility-api LOCALAPPDATA:/mobility-api HOME:/.local/state/mobility-api; do`,
    '\tname=${rule%%:*}',
    '\t[ -n "${!name:-}" ] || continue',
    `\t[[ \${!name} == /* ]] || fail "$name is '\${!name}', not an absolute path: set ${STATE_DIR_VARIABLE}."`,
    '\tCLOCK_DIR="${!name}${rule#*:}/clock"',
    '\tbreak',
    'done',
    `[ -n "\${CLOCK_DIR:-}" ] || fail "Set ${STATE_DIR_VARIABLE} to a folder for the clock file: no HOME is set."`,
    'CLOCK_FILE="$CLOCK_DIR/iat-$(printf %s "$KEY_ID" | openssl dgst -sha256 -r | cut -c1-32)"',
    'mkdir -p -m 700 "$CLOCK_DIR" 2>/dev/null ||',
    `\tfail "Cannot make the clock folder $CLOCK_DIR. Set ${STATE_DIR_VARIABLE} to a folder you can write."`,
    '',
    `# Whether a lock folder was refreshed more than ${CLOCK_LOCK_STALE_SECONDS} s ago (its holder died).`,
    'stale() {',
    '\tlocal mtime',
    '\tmtime=$(stat -c %Y "$1" 2>/dev/null || stat -f %m "$1" 2>/dev/null) || return 1',
    `\t[ $(($(date +%s) - mtime)) -gt ${CLOCK_LOCK_STALE_SECONDS} ]`,
    '}',
    '',
    '# Spec 5.1 rule 6: takes the lock every signer of this key takes (the protocol in the header),',
    `# the folder $CLOCK_FILE.lock, made by mkdir and refreshed every ${CLOCK_LOCK_REFRESH_SECONDS} s while held. A stale lock`,
    '# is removed by one waiter at a time, under $CLOCK_FILE.takeover.lock.',
    'lock_key() {',
    `\tlocal deadline=$((SECONDS + ${CLOCK_LOCK_WAIT_SECONDS}))`,
    '\tuntil mkdir -m 700 "$CLOCK_FILE.lock" 2>/dev/null; do',
    '\t\t[ -d "$CLOCK_DIR" ] || fail "Cannot lock $CLOCK_FILE: its folder is gone."',
    '\t\tif stale "$CLOCK_FILE.lock"; then',
    '\t\t\tif mkdir "$CLOCK_FILE.takeover.lock" 2>/dev/null; then',
    '\t\t\t\t! stale "$CLOCK_FILE.lock" || rmdir "$CLOCK_FILE.lock" 2>/dev/null || true',
    '\t\t\t\trmdir "$CLOCK_FILE.takeover.lock"',
    '\t\t\telif stale "$CLOCK_FILE.takeover.lock"; then',
    '\t\t\t\trmdir "$CLOCK_FILE.takeover.lock" 2>/dev/null || true',
    '\t\t\tfi',
    '\t\telif [ "$SECONDS" -ge "$deadline" ]; then',
    `\t\t\tfail "$CLOCK_FILE.lock was held for ${CLOCK_LOCK_WAIT_SECONDS} s; if no signer runs, remove it."`,
    '\t\tfi',
    '\t\tsleep 0.01',
    '\tdone',
    // bash runs a trap once its foreground command (a touch) is done, and at once during `wait`. A touch that ended
    // after the rmdir would reach the next holder's lock folder, whose holder would count its lock as lost.
    '\t# The refresher stops between two touches (TERM waits for a touch under way), never after the release;',
    '\t# touch -c never makes a file where the lock folder was.',
    '\t(',
    "\t\ttrap 'kill ${!:-} 2>/dev/null || true; exit 0' TERM",
    '\t\twhile :; do',
    `\t\t\tsleep ${CLOCK_LOCK_REFRESH_SECONDS} &`,
    '\t\t\twait $!',
    '\t\t\ttouch -c "$CLOCK_FILE.lock" 2>/dev/null',
    '\t\tdone',
    '\t) &',
    '\tREFRESHER=$!',
    '\ttrap unlock_key EXIT',
    '}',
    '',
    "# Releases the key lock: the refresher stops first, so it never touches a later holder's lock.",
    'unlock_key() {',
    '\tkill "$REFRESHER" 2>/dev/null',
    '\twait "$REFRESHER" 2>/dev/null || true',
    '\trmdir "$CLOCK_FILE.lock"',
    '}',
    '',
    'base64url() { basenc --base64url -w0 | tr -d =; }',
    '',
    '# Prints a new token, its iat later than that of every token issued on this key before (spec',
    '# 5.1 rule 6); called with the key locked. Returns non-zero when signing fails.',
    'sign() {',
    '\tlocal iat last temporary header claims input signature',
    '\tlast=$(cat "$CLOCK_FILE" 2>/dev/null) || last=0 # none yet',
    '\t# Damaged from outside: counts as now (no signer writes a time ahead of its clock).',
    '\t[[ $last =~ ^[0-9]+(\\.[0-9]+)?$ ]] || last=$(date +%s)',
    '\tlast=${last%%.*} # a whole iat is later than last when it is later than its whole part',
    '\tiat=$(date +%s)',
    '\twhile [ "$iat" -le "$last" ]; do # wait for the next second, never reuse one',
    '\t\tsleep 0.1',
    '\t\tiat=$(date +%s)',
    '\tdone',
    '\t# Replaced whole (a reader sees the old time or the new one).',
    '\ttemporary="$CLOCK_FILE.$BASHPID.tmp"',
    '\t(umask 077 && echo "$iat" >"$temporary") && mv -f "$temporary" "$CLOCK_FILE" || return 1',
    '\t# The key id reaches jq in its environment, not in its arguments, which ps shows.',
    `\theader=$(KEY_ID="$KEY_ID" jq -cn '{alg: "${credential.alg}", typ: "JWT", kid: env.KEY_ID}') || return 1 # spec ${spec}`,
    `\tclaims=$(jq -cn --arg iss "$ISSUER" --arg aud "$BASE_URL" --argjson iat "$iat" --argjson life "$LIFETIME" \\`,
    `\t\t--arg jti "$(cat /proc/sys/kernel/random/uuid 2>/dev/null || uuidgen)" '${claims}') || return 1`,
    ...(serviceAccount ? ['\t# spec 5.6: sub and email are the client_email'] : []),
    '\t# spec 5.1 rule 7: jti is a new random UUID per token',
    '\tinput="$(printf %s "$header" | base64url).$(printf %s "$claims" | base64url)"',
    ...signature,
    '\t[ -n "$signature" ] || return 1',
    '\techo "$input.$signature"',
    '}',
    '',
    '# One GET with a fresh token (spec 5.1 rules 3 and 4): prints the body, then the status on a',
    '# line of its own. The token reaches curl on stdin, not in its arguments, which ps shows.',
    '# A token that could not be signed stops here: nothing is sent.',
    'get() {',
    '\t(',
    '\t\t# Spec 5.1 rule 6: the key stays locked until the answer has arrived (released as this',
    '\t\t# subshell ends), so that no later token reaches the server first.',
    '\t\tlock_key',
    '\t\ttoken=$(sign) || exit 1',
    '\t\tprintf \'Authorization: Bearer %s\\n\' "$token" |',
    '\t\t\tcurl -sS --max-time 60 -H @- "${HEADERS[@]}" -w \'\\n%{http_code}\' "$1"',
    '\t)',
    '}',
    '',
    fetchFunction(program),
    '',
    'pids=()',
    'for worker in $(seq "$WORKERS"); do',
    '\tfetch "$worker" &',
    '\tpids+=($!)',
    'done',
    'status=0',
    'for pid in "${pids[@]}"; do wait "$pid" || status=1; done',
    'exit "$status"',
    '',
  ].join('\n');
}

function fetchFunction(program: RestCodeProgram): string {
  const { request } = program;
  const where = request.pages ? 'worker $1 page $page' : 'worker $1';
  const received = request.csv
    ? ['echo "$body"']
    : request.itemsKey
      ? [
          `echo "${where}: $(jq ${shellQuote(`.${JSON.stringify(request.itemsKey)} | length`)} <<<"$body") ${itemsWord(request)}"`,
        ]
      : [`echo "${where}: $body"`];
  const answer = (indent: string, url: string) => [
    `${indent}answer=$(get ${url}) || return 1 # signing or curl failed, and said why`,
    `${indent}status=\${answer##*$'\\n'}`,
    `${indent}body=\${answer%$'\\n'*}`,
    `${indent}if [ "\${status:0:1}" != 2 ]; then`,
    `${indent}\techo "worker $1: HTTP $status: $body" >&2`,
    `${indent}\treturn 1`,
    `${indent}fi`,
  ];
  if (!request.pages) {
    return [
      'fetch() {',
      '\tlocal answer status body',
      ...answer('\t', `"$BASE_URL"${shellQuote(request.path)}`),
      ...received.map((l) => `\t${l}`),
      '}',
    ].join('\n');
  }
  return [
    'fetch() {',
    `\tlocal url="$BASE_URL"${shellQuote(request.path)} page=1 answer status body`,
    '\twhile [ -n "$url" ]; do',
    '\t\t# a new token for every page',
    ...answer('\t\t', '"$url"'),
    ...received.map((l) => `\t\t${l}`),
    `\t\turl=$(jq -r '.links.next // empty' <<<"$body")`,
    '\t\tcase $url in',
    '\t\t"" | "$BASE_URL"/*) ;;',
    '\t\t*)',
    '\t\t\techo "worker $1: links.next leaves $BASE_URL: $url" >&2',
    '\t\t\treturn 1',
    '\t\t\t;;',
    '\t\tesac',
    '\t\tpage=$((page + 1))',
    '\tdone',
    '}',
  ].join('\n');
}

/** Lines with optional trailing comments, the comments of consecutive lines aligned as shfmt aligns them. */
function alignComments(lines: string[][]): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length;) {
    let j = i;
    while (j < lines.length && lines[j].length > 1) j++;
    if (j === i) {
      out.push(lines[i][0]);
      i++;
      continue;
    }
    const width = Math.max(...lines.slice(i, j).map(([code]) => code.length));
    for (const [code, comment] of lines.slice(i, j)) out.push(`${code.padEnd(width)} # ${comment}`);
    i = j;
  }
  return out;
}
