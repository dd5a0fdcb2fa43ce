import type { RestCodeProgram } from './codeRequest';
import {
  blockComment,
  headerLines,
  itemsWord,
  KEY_FILE_VARIABLE,
  KEY_ID_VARIABLE,
  sharedClockLines,
  WORKERS_VARIABLE,
} from './codeRequest';
import { JAVA_CLOCK_FIELDS, JAVA_CLOCK_IMPORTS, javaClockMethods } from './javaClock';

/** A Java string literal (JSON's escapes are Java's, and JSON never writes the \u000a Java would choke on). */
const str = (text: string) => JSON.stringify(text);

/** The class name the program is written with; the file must be named after it. */
export const JAVA_CLASS = 'MobilityApiRequest';

/** Where Debian's and Ubuntu's libgoogle-gson-java put Gson, the JSON parser the program reads with. */
export const GSON_JAR = '/usr/share/java/gson.jar';

/** A Java 17 program (java.net.http, java.security, Gson for JSON), in google-java-format's style. */
export function javaProgram(program: RestCodeProgram): string {
  const { request, credential } = program;
  const serviceAccount = credential.type === 'service-account';
  const spec = serviceAccount ? '5.6' : credential.type === 'iam' ? '5.5' : '5.4';
  const audienceJson = JSON.stringify(program.audience);
  const header = [
    ...headerLines(program),
    '',
    ...sharedClockLines(),
    '',
    'Needs Java 17+ and Gson (Debian, Ubuntu: apt-get install libgoogle-gson-java; elsewhere the jar',
    `com.google.code.gson:gson from Maven Central, its path instead of ${GSON_JAR}).`,
    `Saved as ${JAVA_CLASS}.java, it is built once and run, with no prompt (from cron too: cd to`,
    'its folder first), with:',
    `    javac -cp ${GSON_JAR} ${JAVA_CLASS}.java`,
    `    java -cp ${GSON_JAR}:. ${JAVA_CLASS}`,
    '(On Windows the classpath separator is ; instead of :.)',
    ...(credential.alg === 'ES256'
      ? [
          'The PEM must be PKCS#8 (BEGIN PRIVATE KEY); convert a BEGIN EC PRIVATE KEY with',
          '`openssl pkcs8 -topk8 -nocrypt -in ec.pem -out key.pem`.',
        ]
      : []),
  ];
  const headerPairs = Object.entries(request.headers).flatMap(([name, value]) => [str(name), str(value)]);
  return [
    blockComment(header, '/*'),
    [
      ...[
        'import com.google.gson.JsonElement;',
        'import com.google.gson.JsonObject;',
        'import com.google.gson.JsonParser;',
        'import java.io.IOException;',
        'import java.net.URI;',
        'import java.net.http.HttpClient;',
        'import java.net.http.HttpRequest;',
        'import java.net.http.HttpResponse;',
        'import java.net.http.HttpTimeoutException;',
        'import java.nio.charset.StandardCharsets;',
        'import java.nio.file.Files;',
        'import java.nio.file.Path;',
        'import java.security.KeyFactory;',
        'import java.security.PrivateKey;',
        'import java.security.Signature;',
        'import java.security.spec.PKCS8EncodedKeySpec;',
        'import java.time.Duration;',
        'import java.util.ArrayList;',
        'import java.util.Base64;',
        'import java.util.List;',
        'import java.util.UUID;',
        ...JAVA_CLOCK_IMPORTS,
        ...(serviceAccount ? [] : ['import java.security.interfaces.ECPrivateKey;']),
      ].sort(),
    ].join('\n'),
    '',
    `public class ${JAVA_CLASS} {`,
    `  static final String BASE_URL = ${str(program.baseUrl)};`,
    `  static final String AUDIENCE_JSON = ${str(audienceJson)}; // spec 5.3: the base URL`,
    `  static final long LIFETIME = ${program.lifetimeSeconds}; // spec 5.1 rule 5: 60 to 3600 seconds`,
    `  static final String URL = BASE_URL + ${str(request.path)};`,
    `  static final String[] HEADERS = {${headerPairs.join(', ')}};`,
    '  static final Duration TIMEOUT = Duration.ofSeconds(30); // a request with no answer by then fails',
    '  static final HttpClient HTTP =',
    '      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();',
    '  static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();',
    '  static final Object LOCK = new Object();',
    '  static PrivateKey privateKey;',
    '  static String keyId;',
    '  static String issuer;',
    ...JAVA_CLOCK_FIELDS,
    '',
    '  /** A problem the user can fix, said in one line. */',
    '  static class Problem extends RuntimeException {',
    '    Problem(String message) {',
    '      super(message, null, false, false);',
    '    }',
    '  }',
    '',
    '  /** One GET with a fresh token (spec 5.1 rules 3 and 4). */',
    '  static HttpResponse<String> get(String url) throws Exception {',
    '    // Spec 5.1 rule 6: each token of a key is issued later than the one before. Requests wait',
    '    // for LOCK (across threads) and for the key lock (across every signer) until the',
    '    // answer before theirs has arrived, so that no later token reaches the server first.',
    '    synchronized (LOCK) {',
    '      Runnable release = lockKey();',
    '      try {',
    '        String token = sign(nextIat());',
    '        HttpRequest request =',
    '            HttpRequest.newBuilder(URI.create(url))',
    '                .timeout(TIMEOUT)',
    '                .headers(HEADERS)',
    '                .header("Authorization", "Bearer " + token)',
    '                .build();',
    '        try {',
    '          return HTTP.send(request, HttpResponse.BodyHandlers.ofString());',
    '        } catch (HttpTimeoutException e) {',
    '          throw new Problem("GET " + url + ": no answer within " + TIMEOUT.toSeconds() + " s");',
    '        } catch (IOException e) {',
    '          throw new Problem("GET " + url + ": " + reason(e));',
    '        }',
    '      } finally {',
    '        release.run();',
    '      }',
    '    }',
    '  }',
    '',
    ...javaClockMethods(),
    '',
    '  /** A signed token for `iat`. */',
    '  static String sign(long iat) throws Exception {',
    '    JsonObject header = new JsonObject();',
    `    header.addProperty("alg", "${credential.alg}"); // spec ${spec}`,
    '    header.addProperty("typ", "JWT");',
    '    header.addProperty("kid", keyId);',
    '    JsonObject claims = new JsonObject();',
    '    claims.addProperty("iss", issuer);',
    ...(serviceAccount
      ? [
          '    claims.addProperty("sub", issuer); // spec 5.6: sub and email are the client_email',
          '    claims.addProperty("email", issuer);',
        ]
      : []),
    '    claims.add("aud", JsonParser.parseString(AUDIENCE_JSON));',
    '    claims.addProperty("iat", iat);',
    '    claims.addProperty("exp", iat + LIFETIME);',
    '    claims.addProperty("jti", UUID.randomUUID().toString()); // spec 5.1 rule 7: a new random UUID',
    '    String signingInput = base64url(header.toString()) + "." + base64url(claims.toString());',
    ...(credential.alg === 'ES256'
      ? [
          '    // ES256 signatures are R || S (RFC 7518 3.4), not the DER that SHA256withECDSA gives.',
          '    Signature signer = Signature.getInstance("SHA256withECDSAinP1363Format");',
        ]
      : ['    Signature signer = Signature.getInstance("SHA256withRSA");']),
    '    signer.initSign(privateKey);',
    '    signer.update(signingInput.getBytes(StandardCharsets.UTF_8));',
    '    return signingInput + "." + BASE64URL.encodeToString(signer.sign());',
    '  }',
    '',
    fetchMethod(program),
    '',
    '  public static void main(String[] args) throws Exception {',
    '    int workers;',
    '    try {',
    `      Path keyFile = Path.of(required(${str(KEY_FILE_VARIABLE)}, ${str(serviceAccount ? 'the path of your service-account key file (JSON)' : 'the path of your EC P-256 private key (PEM, PKCS#8)')}));`,
    '      String keyText = read(keyFile);',
    ...(serviceAccount
      ? [
          '      // spec 5.6: the kid is private_key_id, iss the client_email',
          '      JsonObject key = serviceAccount(keyFile, keyText);',
          '      keyId = key.get("private_key_id").getAsString();',
          '      issuer = key.get("client_email").getAsString();',
          '      privateKey = pkcs8(keyFile, key.get("private_key").getAsString());',
        ]
      : [
          '      privateKey = pkcs8(keyFile, keyText);',
          `      keyId = required(${str(KEY_ID_VARIABLE)}, "the key id (kid) your public key is registered under");`,
          `      issuer = ${str(credential.issuer ?? '')};`,
        ]),
    '      workers = workerCount();',
    '      openClock();',
    '    } catch (Problem e) {',
    '      System.err.println(e.getMessage());',
    '      System.exit(1);',
    '      return;',
    '    }',
    '    List<Thread> threads = new ArrayList<>();',
    '    for (int n = 1; n <= workers; n++) {',
    '      int worker = n;',
    '      Thread thread =',
    '          new Thread(',
    '              () -> {',
    '                try {',
    '                  fetch(worker);',
    '                } catch (Problem e) {',
    '                  System.err.println(e.getMessage());',
    '                  System.exit(1);',
    '                } catch (Exception e) {',
    '                  System.err.println("worker " + worker + ": " + reason(e));',
    '                  System.exit(1);',
    '                }',
    '              });',
    '      thread.start();',
    '      threads.add(thread);',
    '    }',
    '    for (Thread thread : threads) thread.join();',
    '  }',
    '',
    '  static String required(String name, String what) {',
    '    String value = System.getenv(name);',
    '    if (value == null || value.isEmpty()) throw new Problem("Set " + name + " to " + what + ".");',
    '    return value;',
    '  }',
    '',
    '  static String read(Path file) {',
    '    try {',
    '      return Files.readString(file);',
    '    } catch (IOException e) {',
    `      throw new Problem("Cannot read ${KEY_FILE_VARIABLE} (" + file + "): " + reason(e));`,
    '    }',
    '  }',
    ...(serviceAccount
      ? [
          '',
          '  static JsonObject serviceAccount(Path file, String text) {',
          '    JsonElement json;',
          '    try {',
          '      json = JsonParser.parseString(text);',
          '    } catch (RuntimeException e) {',
          '      json = new JsonObject();',
          '    }',
          '    JsonObject key = json.isJsonObject() ? json.getAsJsonObject() : new JsonObject();',
          '    List<String> missing = new ArrayList<>();',
          '    for (String name : List.of("private_key", "private_key_id", "client_email")) {',
          '      JsonElement value = key.get(name);',
          '      if (value == null || !value.isJsonPrimitive() || !value.getAsJsonPrimitive().isString()) {',
          '        missing.add(name);',
          '      }',
          '    }',
          '    if (!missing.isEmpty()) {',
          '      throw new Problem(',
          `          "${KEY_FILE_VARIABLE} (" + file + ") is not a service-account key file: no " + String.join(", ", missing) + ".");`,
          '    }',
          '    return key;',
          '  }',
        ]
      : []),
    '',
    `  /** The private key of a PKCS#8 PEM: ${serviceAccount ? 'RSA' : 'EC P-256'}, or a Problem that says what it is. */`,
    '  static PrivateKey pkcs8(Path file, String pem) {',
    `    String where = "${KEY_FILE_VARIABLE} (" + file + ")";`,
    '    if (!pem.contains("BEGIN PRIVATE KEY")) {',
    '      throw new Problem(where + " holds no PKCS#8 private key (BEGIN PRIVATE KEY); see the header.");',
    '    }',
    '    try {',
    '      String base64 = pem.replaceAll("-----[A-Z ]+-----", "");',
    '      byte[] der = Base64.getMimeDecoder().decode(base64);',
    ...(serviceAccount
      ? ['      return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(der));']
      : [
          '      PrivateKey key = KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(der));',
          '      if (((ECPrivateKey) key).getParams().getCurve().getField().getFieldSize() != 256) {',
          '        throw new Problem(where + " holds an EC key of another curve; ES256 needs P-256 (spec 5.4).");',
          '      }',
          '      return key;',
        ]),
    '    } catch (java.security.GeneralSecurityException | IllegalArgumentException e) {',
    `      throw new Problem(where + " holds no ${serviceAccount ? 'RSA' : 'EC'} private key; ${credential.alg} needs one (spec ${spec}).");`,
    '    }',
    '  }',
    '',
    '  static int workerCount() {',
    `    String text = System.getenv(${str(WORKERS_VARIABLE)});`,
    '    if (text == null || text.isEmpty()) return 1;',
    '    if (!text.matches("[0-9]{1,3}") || Integer.parseInt(text) < 1 || Integer.parseInt(text) > 100) {',
    `      throw new Problem("${WORKERS_VARIABLE} must be a whole number from 1 to 100, not \\"" + text + "\\".");`,
    '    }',
    '    return Integer.parseInt(text);',
    '  }',
    '',
    '  /** Why something failed, in a few words: "Connection refused (ConnectException)". */',
    '  static String reason(Throwable e) {',
    '    for (Throwable cause = e; cause != null; cause = cause.getCause()) {',
    '      if (cause.getMessage() != null && !cause.getMessage().isEmpty()) {',
    '        return cause.getMessage() + " (" + cause.getClass().getSimpleName() + ")";',
    '      }',
    '    }',
    '    return e instanceof java.net.ConnectException',
    '        ? "cannot connect to the server (ConnectException): check the URL and that it is up"',
    '        : e.getClass().getSimpleName();',
    '  }',
    '',
    '  static String base64url(String text) {',
    '    return BASE64URL.encodeToString(text.getBytes(StandardCharsets.UTF_8));',
    '  }',
    '}',
    '',
  ].join('\n');
}

function fetchMethod(program: RestCodeProgram): string {
  const { request } = program;
  const refused = [
    'if (answer.statusCode() / 100 != 2) {',
    '  throw new Problem("worker " + worker + ": " + answer.statusCode() + " " + answer.body());',
    '}',
  ];
  const itemsKey = request.itemsKey;
  const where = request.pages ? '"worker " + worker + " page " + page' : '"worker " + worker';
  // What one answer prints: CSV as it is; JSON as the number of its items where known, else as it is.
  const printed = request.csv
    ? ['System.out.println(answer.body());']
    : itemsKey
      ? [
          `JsonElement items = body.get(${str(itemsKey)});`,
          'int count = items != null && items.isJsonArray() ? items.getAsJsonArray().size() : 0;',
          `System.out.println(${where} + ": " + count + " ${itemsWord(request)}");`,
        ]
      : [`System.out.println(${where} + ": " + answer.body());`];
  const parse = !request.csv && (itemsKey || request.pages) ? ['JsonObject body = json(url, answer.body());'] : [];
  const jsonMethod = parse.length
    ? [
        '',
        '  /** The answer as a JSON object, or a Problem that says it is not one. */',
        '  static JsonObject json(String url, String text) {',
        '    try {',
        '      return JsonParser.parseString(text).getAsJsonObject();',
        '    } catch (RuntimeException e) {',
        '      throw new Problem("GET " + url + ": the answer is not a JSON object: " + reason(e));',
        '    }',
        '  }',
      ]
    : [];
  if (!request.pages) {
    return [
      '  static void fetch(int worker) throws Exception {',
      '    String url = URL;',
      '    HttpResponse<String> answer = get(url);',
      ...[...refused, ...parse, ...printed].map((l) => `    ${l}`),
      '  }',
      ...jsonMethod,
    ].join('\n');
  }
  return [
    '  static void fetch(int worker) throws Exception {',
    '    String url = URL;',
    '    for (int page = 1; url != null; page++) {',
    '      HttpResponse<String> answer = get(url); // a new token for every page',
    ...[...refused, ...parse, ...printed].map((l) => `      ${l}`),
    '      url = next(body);',
    '      if (url != null && !url.startsWith(BASE_URL + "/")) {',
    '        throw new Problem("worker " + worker + ": links.next leaves " + BASE_URL + ": " + url);',
    '      }',
    '    }',
    '  }',
    ...jsonMethod,
    '',
    '  /** links.next of a page, null on the last one. */',
    '  static String next(JsonObject body) {',
    '    JsonElement links = body.get("links");',
    '    if (links == null || !links.isJsonObject()) return null;',
    '    JsonElement next = links.getAsJsonObject().get("next");',
    '    return next == null || next.isJsonNull() ? null : next.getAsString();',
    '  }',
  ].join('\n');
}
