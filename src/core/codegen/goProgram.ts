import type { RestCodeProgram } from './codeRequest';
import {
  headerLines,
  itemsWord,
  KEY_FILE_VARIABLE,
  KEY_ID_VARIABLE,
  sharedClockLines,
  WORKERS_VARIABLE,
} from './codeRequest';
import { goClockFileLines, goClockLines } from './goClock';

const str = (text: string) => JSON.stringify(text);

/** The go.mod that builds the program offline from Debian's golang-*-dev sources, as the header gives it. */
export const GO_OFFLINE_MOD = [
  'module example',
  '',
  'go 1.19',
  '',
  'require (',
  '\tgithub.com/golang-jwt/jwt/v4 v4.4.3',
  '\tgithub.com/google/uuid v1.3.0',
  ')',
  '',
  'replace github.com/golang-jwt/jwt/v4 => /usr/share/gocode/src/github.com/golang-jwt/jwt',
  '',
  'replace github.com/google/uuid => /usr/share/gocode/src/github.com/google/uuid',
];

/** A Go program (github.com/golang-jwt/jwt/v4 + net/http), as gofmt formats it. */
export function goProgram(program: RestCodeProgram): string {
  const { request, credential } = program;
  const serviceAccount = credential.type === 'service-account';
  const run = serviceAccount
    ? `${KEY_FILE_VARIABLE}=/path/to/service-account.json /path/to/mobility-api-request`
    : `${KEY_FILE_VARIABLE}=/path/to/key.pem ${KEY_ID_VARIABLE}="$(cat /path/to/key-id)" /path/to/mobility-api-request`;
  const header = [
    ...headerLines(program),
    '',
    ...sharedClockLines(),
    '',
    'Needs Go 1.19 or later, github.com/golang-jwt/jwt/v4 and github.com/google/uuid. Build it once,',
    'in a folder of its own holding this file as main.go, then run the program it builds (from cron',
    'too: cron sets none of these variables, so set them on its line):',
    '',
    '\tgo mod init example && go mod tidy && go build -o mobility-api-request .',
    `\t${run}`,
    '',
    'Offline on Debian (golang-github-golang-jwt-jwt-dev golang-github-google-uuid-dev), write this',
    'go.mod beside main.go instead of go mod init and go mod tidy:',
    '',
    ...GO_OFFLINE_MOD.map((l) => (l ? `\t${l}` : '')),
    '',
    'and build with:',
    '',
    '\tGOFLAGS=-mod=mod GOPROXY=off go build -o mobility-api-request .',
  ];
  const headers = Object.entries(request.headers);
  const width = Math.max(...headers.map(([name]) => str(name).length + 1));
  const claim = (name: string, value: string) => `\t\t${`${str(name)}:`.padEnd(serviceAccount ? 8 : 6)} ${value},`;
  const spec = serviceAccount ? '5.6' : credential.type === 'iam' ? '5.5' : '5.4';
  return [
    header.map((l) => (l.startsWith('\t') ? `//${l}` : l ? `// ${l}` : '//')).join('\n'),
    'package main',
    '',
    'import (',
    '\t"crypto/sha256"',
    '\t"encoding/hex"',
    ...(serviceAccount || parsesAnswer(program) ? ['\t"encoding/json"'] : []),
    '\t"fmt"',
    '\t"io"',
    '\t"net/http"',
    '\t"os"',
    '\t"path/filepath"',
    '\t"regexp"',
    '\t"strconv"',
    '\t"strings"',
    '\t"sync"',
    '\t"time"',
    '',
    '\t"github.com/golang-jwt/jwt/v4"',
    '\t"github.com/google/uuid"',
    ')',
    '',
    'const (',
    `\tbaseURL  = ${str(program.baseUrl)}`,
    `\tlifetime = ${program.lifetimeSeconds} // spec 5.1 rule 5: 60 to 3600 seconds`,
    `\tpath     = ${str(request.path)}`,
    ')',
    '',
    `var audience = ${Array.isArray(program.audience) ? '[]string{baseURL}' : 'baseURL'} // spec 5.3: the environment's base URL`,
    '',
    'var headers = map[string]string{',
    ...headers.map(([name, value]) => `\t${`${str(name)}:`.padEnd(width)} ${str(value)},`),
    '}',
    '',
    '// httpClient gives up on an answer that has not arrived in full within a minute.',
    'var httpClient = &http.Client{Timeout: time.Minute}',
    '',
    '// client signs and sends for one key.',
    'type client struct {',
    "\tmu        sync.Mutex // this process's goroutines (lockKey: the other signers)",
    '\tclockFile string',
    '\tkey       interface{}',
    '\tkid       string',
    '\tissuer    string',
    '}',
    '',
    ...goClockLines(),
    '',
    '// get sends one GET with a fresh token (spec 5.1 rules 3 and 4). The clock stays locked until',
    '// the answer has arrived, so that no later token reaches the server first.',
    'func (c *client) get(worker int, url string) (*http.Response, []byte) {',
    '\tiat, release := c.lockClock()',
    '\tdefer release()',
    `\ttoken := jwt.NewWithClaims(jwt.SigningMethod${credential.alg}, jwt.MapClaims{`,
    claim('iss', 'c.issuer'),
    ...(serviceAccount
      ? [claim('sub', 'c.issuer') + ' // spec 5.6: sub and email are the client_email', claim('email', 'c.issuer')]
      : []),
    claim('aud', 'audience'),
    claim('iat', 'iat'),
    claim('exp', 'iat + lifetime'),
    claim('jti', 'uuid.NewString()') + ' // spec 5.1 rule 7: a new random UUID per token',
    '\t})',
    `\ttoken.Header["kid"] = c.kid // spec ${spec}`,
    '\tsigned, err := token.SignedString(c.key)',
    '\tcheck(err)',
    '\treq, err := http.NewRequest("GET", url, nil)',
    '\tcheck(err)',
    '\tfor name, value := range headers {',
    '\t\treq.Header.Set(name, value)',
    '\t}',
    '\treq.Header.Set("Authorization", "Bearer "+signed)',
    '\tres, err := httpClient.Do(req)',
    '\tif err != nil {',
    '\t\tfail("worker %d: no answer: %v", worker, err)',
    '\t}',
    '\tdefer res.Body.Close()',
    '\tbody, err := io.ReadAll(res.Body)',
    '\tif err != nil {',
    '\t\tfail("worker %d: the answer broke off: %v", worker, err)',
    '\t}',
    '\treturn res, body',
    '}',
    '',
    fetchFunction(program),
    '',
    'func main() {',
    `\tworkers, err := strconv.Atoi(envOr(${str(WORKERS_VARIABLE)}, "1"))`,
    '\tif err != nil || workers < 1 {',
    `\t\tfail("Set ${WORKERS_VARIABLE} to a whole number from 1, not %q.", os.Getenv(${str(WORKERS_VARIABLE)}))`,
    '\t}',
    `\tkeyFile := os.Getenv(${str(KEY_FILE_VARIABLE)})`,
    '\tif keyFile == "" {',
    `\t\tfail("Set ${KEY_FILE_VARIABLE} to the ${serviceAccount ? 'service-account key file (JSON)' : 'private key PEM file'}.")`,
    '\t}',
    '\ttext, err := os.ReadFile(keyFile)',
    '\tif err != nil {',
    `\t\tfail("Cannot read ${KEY_FILE_VARIABLE}: %v.", err)`,
    '\t}',
    ...(serviceAccount
      ? [
          '\tvar keyFields struct {',
          '\t\tPrivateKey   string `json:"private_key"`',
          '\t\tPrivateKeyID string `json:"private_key_id"`',
          '\t\tClientEmail  string `json:"client_email"`',
          '\t}',
          '\terr = json.Unmarshal(text, &keyFields)',
          '\tif err != nil || keyFields.PrivateKey == "" || keyFields.PrivateKeyID == "" || keyFields.ClientEmail == "" {',
          `\t\tfail("${KEY_FILE_VARIABLE} (%s) is not a service-account key file: JSON with private_key, private_key_id and client_email.", keyFile)`,
          '\t}',
          '\tkey, err := jwt.ParseRSAPrivateKeyFromPEM([]byte(keyFields.PrivateKey))',
          '\tif err != nil {',
          `\t\tfail("${KEY_FILE_VARIABLE} (%s): private_key is no RSA private key (RS256): %v.", keyFile, err)`,
          '\t}',
          '\t// spec 5.6: kid is private_key_id, iss the client_email',
          '\tkid := keyFields.PrivateKeyID',
          '\tc := &client{clockFile: clockFile(kid), key: key, kid: kid, issuer: keyFields.ClientEmail}',
        ]
      : [
          '\tkey, err := jwt.ParseECPrivateKeyFromPEM(text)',
          '\tif err != nil || key.Curve.Params().Name != "P-256" {',
          `\t\tfail("${KEY_FILE_VARIABLE} (%s) holds no P-256 EC private key in PEM (ES256).", keyFile)`,
          '\t}',
          `\tkid := os.Getenv(${str(KEY_ID_VARIABLE)})`,
          '\tif kid == "" {',
          `\t\tfail("Set ${KEY_ID_VARIABLE} to the key id of that key.")`,
          '\t}',
          `\tc := &client{clockFile: clockFile(kid), key: key, kid: kid, issuer: ${str(credential.issuer ?? '')}}`,
        ]),
    '\tvar wg sync.WaitGroup',
    '\tfor w := 1; w <= workers; w++ {',
    '\t\twg.Add(1)',
    '\t\tgo func(worker int) {',
    '\t\t\tdefer wg.Done()',
    '\t\t\tc.fetch(worker)',
    '\t\t}(w)',
    '\t}',
    '\twg.Wait()',
    '}',
    '',
    ...goClockFileLines(),
    '',
    'func envOr(name, fallback string) string {',
    '\tif value := os.Getenv(name); value != "" {',
    '\t\treturn value',
    '\t}',
    '\treturn fallback',
    '}',
    '',
    '// fail prints one line that says what to fix and ends the program.',
    'func fail(format string, args ...interface{}) {',
    '\tfmt.Fprintf(os.Stderr, format+"\\n", args...)',
    '\tos.Exit(1)',
    '}',
    '',
    'func check(err error) {',
    '\tif err != nil {',
    '\t\tfail("%v", err)',
    '\t}',
    '}',
    '',
  ].join('\n');
}

function fetchFunction(program: RestCodeProgram): string {
  const { request } = program;
  const where = request.pages ? 'worker %d page %d' : 'worker %d';
  const args = request.pages ? 'worker, page' : 'worker';
  const refused = [
    'if res.StatusCode/100 != 2 {',
    '\tfmt.Fprintf(os.Stderr, "worker %d: %s: %s\\n", worker, res.Status, body)',
    '\tos.Exit(1)',
    '}',
  ];
  const answerType = [
    'var answer struct {',
    ...(request.itemsKey ? [`\tItems []json.RawMessage \`json:${str(request.itemsKey)}\``] : []),
    ...(request.pages ? ['\tLinks struct {', '\t\tNext string `json:"next"`', '\t} `json:"links"`'] : []),
    '}',
    'check(json.Unmarshal(body, &answer))',
  ];
  const received = request.csv
    ? ['fmt.Println(string(body))']
    : request.itemsKey
      ? [`fmt.Printf("${where}: %d ${itemsWord(request)}\\n", ${args}, len(answer.Items))`]
      : [`fmt.Printf("${where}: %s\\n", ${args}, body)`];
  const parse = parsesAnswer(program) ? answerType : [];
  if (!request.pages) {
    return [
      'func (c *client) fetch(worker int) {',
      '\tres, body := c.get(worker, baseURL+path)',
      ...[...refused, ...parse, ...received].map((l) => `\t${l}`),
      '}',
    ].join('\n');
  }
  return [
    'func (c *client) fetch(worker int) {',
    '\turl := baseURL + path',
    '\tfor page := 1; url != ""; page++ {',
    '\t\tres, body := c.get(worker, url) // a new token for every page',
    ...[...refused, ...parse, ...received].map((l) => `\t\t${l}`),
    '\t\turl = answer.Links.Next',
    '\t\tif url != "" && !strings.HasPrefix(url, baseURL+"/") {',
    '\t\t\tfmt.Fprintf(os.Stderr, "worker %d: links.next leaves %s: %s\\n", worker, baseURL, url)',
    '\t\t\tos.Exit(1)',
    '\t\t}',
    '\t}',
    '}',
  ].join('\n');
}

/** Whether the program reads the JSON answer (for the items or `links.next`), not only prints it. */
function parsesAnswer({ request }: RestCodeProgram): boolean {
  return !request.csv && (request.itemsKey !== undefined || request.pages);
}
