import type { RestCodeProgram } from './codeRequest';
import { headerLines, itemsWord, KEY_FILE_VARIABLE, KEY_ID_VARIABLE, WORKERS_VARIABLE } from './codeRequest';

const str = (text: string) => JSON.stringify(text);

/** A Go program (github.com/golang-jwt/jwt/v4 + net/http), as gofmt formats it. */
export function goProgram(program: RestCodeProgram): string {
  const { request, credential } = program;
  const serviceAccount = credential.type === 'service-account';
  const header = [
    ...headerLines(program),
    '',
    'Needs github.com/golang-jwt/jwt/v4 and github.com/google/uuid:',
    '',
    '\tgo mod init example && go mod tidy && go run .',
    '',
    'Offline on Debian (golang-github-golang-jwt-jwt-dev golang-github-google-uuid-dev), point',
    'go.mod at /usr/share/gocode/src with replace directives and build with GOPROXY=off.',
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
    ...(serviceAccount || parsesAnswer(program) ? ['\t"encoding/json"'] : []),
    '\t"fmt"',
    '\t"io"',
    '\t"net/http"',
    '\t"os"',
    '\t"strconv"',
    ...(request.pages ? ['\t"strings"'] : []),
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
    '// client signs and sends for one key.',
    'type client struct {',
    '\tmu      sync.Mutex // spec 5.1 rule 6: one token at a time per key',
    '\tlastIat int64',
    '\tkey     interface{}',
    '\tkid     string',
    '\tissuer  string',
    '}',
    '',
    '// get sends one GET with a fresh token (spec 5.1 rules 3 and 4).',
    'func (c *client) get(url string) (*http.Response, []byte) {',
    '\t// Spec 5.1 rule 6: each token of a key is issued later than the one before, across',
    '\t// goroutines. The lock is held until the answer arrives, so that no later token reaches',
    '\t// the server first.',
    '\tc.mu.Lock()',
    '\tdefer c.mu.Unlock()',
    '\tiat := time.Now().Unix()',
    '\tfor iat <= c.lastIat { // wait for the next second, never reuse one',
    '\t\ttime.Sleep(time.Until(time.Unix(c.lastIat+1, 0)))',
    '\t\tiat = time.Now().Unix()',
    '\t}',
    '\tc.lastIat = iat',
    `\ttoken := jwt.NewWithClaims(jwt.SigningMethod${credential.alg}, jwt.MapClaims{`,
    claim('iss', 'c.issuer'),
    ...(serviceAccount ? [claim('sub', 'c.issuer') + ' // spec 5.6: sub and email are the client_email', claim('email', 'c.issuer')] : []),
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
    '\tres, err := http.DefaultClient.Do(req)',
    '\tcheck(err)',
    '\tdefer res.Body.Close()',
    '\tbody, err := io.ReadAll(res.Body)',
    '\tcheck(err)',
    '\treturn res, body',
    '}',
    '',
    fetchFunction(program),
    '',
    'func main() {',
    ...(serviceAccount
      ? [
          `\ttext, err := os.ReadFile(os.Getenv(${str(KEY_FILE_VARIABLE)}))`,
          '\tcheck(err)',
          '\tvar keyFile struct {',
          '\t\tPrivateKey   string `json:"private_key"`',
          '\t\tPrivateKeyID string `json:"private_key_id"`',
          '\t\tClientEmail  string `json:"client_email"`',
          '\t}',
          '\tcheck(json.Unmarshal(text, &keyFile))',
          '\tkey, err := jwt.ParseRSAPrivateKeyFromPEM([]byte(keyFile.PrivateKey))',
          '\tcheck(err)',
          '\t// spec 5.6: kid is private_key_id, iss the client_email',
          '\tc := &client{key: key, kid: keyFile.PrivateKeyID, issuer: keyFile.ClientEmail}',
        ]
      : [
          `\tpem, err := os.ReadFile(os.Getenv(${str(KEY_FILE_VARIABLE)}))`,
          '\tcheck(err)',
          '\tkey, err := jwt.ParseECPrivateKeyFromPEM(pem)',
          '\tcheck(err)',
          `\tc := &client{key: key, kid: os.Getenv(${str(KEY_ID_VARIABLE)}), issuer: ${str(credential.issuer ?? '')}}`,
        ]),
    `\tworkers, err := strconv.Atoi(envOr(${str(WORKERS_VARIABLE)}, "1"))`,
    '\tcheck(err)',
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
    'func envOr(name, fallback string) string {',
    '\tif value := os.Getenv(name); value != "" {',
    '\t\treturn value',
    '\t}',
    '\treturn fallback',
    '}',
    '',
    'func check(err error) {',
    '\tif err != nil {',
    '\t\tfmt.Fprintln(os.Stderr, err)',
    '\t\tos.Exit(1)',
    '\t}',
    '}',
    '',
  ].join('\n');
}

function fetchFunction(program: RestCodeProgram): string {
  const { request } = program;
  const where = request.pages ? 'worker %d page %d' : 'worker %d';
  const args = request.pages ? 'worker, page' : 'worker';
  const refused = ['if res.StatusCode/100 != 2 {', '\tfmt.Fprintf(os.Stderr, "worker %d: %s: %s\\n", worker, res.Status, body)', '\tos.Exit(1)', '}'];
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
    return ['func (c *client) fetch(worker int) {', '\tres, body := c.get(baseURL + path)', ...[...refused, ...parse, ...received].map((l) => `\t${l}`), '}'].join('\n');
  }
  return [
    'func (c *client) fetch(worker int) {',
    '\turl := baseURL + path',
    '\tfor page := 1; url != ""; page++ {',
    '\t\tres, body := c.get(url) // a new token for every page',
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
