import type { RestCodeProgram } from './codeRequest';
import { blockComment, headerLines, KEY_FILE_VARIABLE, KEY_ID_VARIABLE, WORKERS_VARIABLE } from './codeRequest';

/** A Java string literal (JSON's escapes are Java's, and JSON never writes the \u000a Java would choke on). */
const str = (text: string) => JSON.stringify(text);

/** The class name the program is written with; the file must be named after it. */
export const JAVA_CLASS = 'MobilityApiRequest';

/** A Java 17 program with the JDK only (java.net.http, java.security), in google-java-format's style. */
export function javaProgram(program: RestCodeProgram): string {
  const { request, credential } = program;
  const serviceAccount = credential.type === 'service-account';
  const es256 = credential.alg === 'ES256';
  const spec = serviceAccount ? '5.6' : credential.type === 'iam' ? '5.5' : '5.4';
  const audienceJson = JSON.stringify(program.audience);
  const header = [
    ...headerLines(program),
    '',
    `JDK 17+ only. Save as ${JAVA_CLASS}.java and run: java ${JAVA_CLASS}.java`,
    ...(es256 ? ['The PEM must be PKCS#8 (BEGIN PRIVATE KEY); convert a BEGIN EC PRIVATE KEY with', '`openssl pkcs8 -topk8 -nocrypt -in ec.pem -out key.pem`.'] : []),
    'The JDK has no JSON parser: the few fields needed are read with patterns.',
  ];
  const headerPairs = Object.entries(request.headers).flatMap(([name, value]) => [str(name), str(value)]);
  return [
    blockComment(header, '/*'),
    [
      'import java.net.URI;',
      'import java.net.http.HttpClient;',
      'import java.net.http.HttpRequest;',
      'import java.net.http.HttpResponse;',
      'import java.nio.charset.StandardCharsets;',
      'import java.nio.file.Files;',
      'import java.nio.file.Path;',
      'import java.security.KeyFactory;',
      'import java.security.PrivateKey;',
      'import java.security.Signature;',
      'import java.security.spec.PKCS8EncodedKeySpec;',
      'import java.util.ArrayList;',
      'import java.util.Base64;',
      'import java.util.List;',
      'import java.util.UUID;',
      'import java.util.regex.Matcher;',
      'import java.util.regex.Pattern;',
    ].join('\n'),
    '',
    `public class ${JAVA_CLASS} {`,
    `  static final String BASE_URL = ${str(program.baseUrl)};`,
    `  static final String AUDIENCE_JSON = ${str(audienceJson)}; // spec 5.3: the base URL`,
    `  static final long LIFETIME = ${program.lifetimeSeconds}; // spec 5.1 rule 5: 60 to 3600 seconds`,
    `  static final String URL = BASE_URL + ${str(request.path)};`,
    `  static final String[] HEADERS = {${headerPairs.join(', ')}};`,
    '  static final HttpClient HTTP = HttpClient.newHttpClient();',
    '  static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();',
    '  static final Object LOCK = new Object();',
    '  static long lastIat;',
    '  static PrivateKey privateKey;',
    '  static String kidJson;',
    '  static String issuerJson;',
    '',
    '  /** One GET with a fresh token (spec 5.1 rules 3 and 4). */',
    '  static HttpResponse<String> get(String url) throws Exception {',
    '    // Spec 5.1 rule 6: each token of a key is issued later than the one before, across',
    '    // threads. The lock is held until the answer arrives, so that no later token reaches the',
    '    // server first.',
    '    synchronized (LOCK) {',
    '      long iat = System.currentTimeMillis() / 1000;',
    '      while (iat <= lastIat) { // wait for the next second, never reuse one',
    '        Thread.sleep(Math.max(1, (lastIat + 1) * 1000 - System.currentTimeMillis()));',
    '        iat = System.currentTimeMillis() / 1000;',
    '      }',
    '      lastIat = iat;',
    `      String header = "{\\"alg\\":\\"${credential.alg}\\",\\"typ\\":\\"JWT\\",\\"kid\\":" + kidJson + "}"; // spec ${spec}`,
    '      String claims =',
    '          "{\\"iss\\":"',
    '              + issuerJson',
    ...(serviceAccount ? ['              + ",\\"sub\\":" // spec 5.6: sub and email are the client_email', '              + issuerJson', '              + ",\\"email\\":"', '              + issuerJson'] : []),
    '              + ",\\"aud\\":"',
    '              + AUDIENCE_JSON',
    '              + ",\\"iat\\":"',
    '              + iat',
    '              + ",\\"exp\\":"',
    '              + (iat + LIFETIME)',
    '              + ",\\"jti\\":\\""',
    '              + UUID.randomUUID() // spec 5.1 rule 7: a new random UUID per token',
    '              + "\\"}";',
    '      String signingInput = base64url(header) + "." + base64url(claims);',
    ...(es256
      ? ['      // ES256 signatures are R || S (RFC 7518 3.4), not the DER that SHA256withECDSA gives.', '      Signature signer = Signature.getInstance("SHA256withECDSAinP1363Format");']
      : ['      Signature signer = Signature.getInstance("SHA256withRSA");']),
    '      signer.initSign(privateKey);',
    '      signer.update(signingInput.getBytes(StandardCharsets.UTF_8));',
    '      String token = signingInput + "." + BASE64URL.encodeToString(signer.sign());',
    '      HttpRequest request =',
    '          HttpRequest.newBuilder(URI.create(url))',
    '              .headers(HEADERS)',
    '              .header("Authorization", "Bearer " + token)',
    '              .build();',
    '      return HTTP.send(request, HttpResponse.BodyHandlers.ofString());',
    '    }',
    '  }',
    '',
    fetchMethod(program),
    '',
    '  public static void main(String[] args) throws Exception {',
    `    String keyFile = Files.readString(Path.of(System.getenv(${str(KEY_FILE_VARIABLE)})));`,
    ...(serviceAccount
      ? [
          '    // spec 5.6: the kid is private_key_id, iss the client_email (kept as JSON strings)',
          '    kidJson = "\\"" + jsonField(keyFile, "private_key_id") + "\\"";',
          '    issuerJson = "\\"" + jsonField(keyFile, "client_email") + "\\"";',
          '    String pem = jsonField(keyFile, "private_key").replace("\\\\n", "\\n");',
          '    privateKey = pkcs8(pem, "RSA");',
        ]
      : [`    kidJson = jsonString(System.getenv(${str(KEY_ID_VARIABLE)}));`, `    issuerJson = ${str(JSON.stringify(credential.issuer ?? ''))};`, '    privateKey = pkcs8(keyFile, "EC");']),
    `    String workersText = System.getenv(${str(WORKERS_VARIABLE)});`,
    '    int workers = workersText == null ? 1 : Integer.parseInt(workersText);',
    '    List<Thread> threads = new ArrayList<>();',
    '    for (int n = 1; n <= workers; n++) {',
    '      int worker = n;',
    '      Thread thread =',
    '          new Thread(',
    '              () -> {',
    '                try {',
    '                  fetch(worker);',
    '                } catch (Exception e) {',
    '                  System.err.println(e.getMessage());',
    '                  System.exit(1);',
    '                }',
    '              });',
    '      thread.start();',
    '      threads.add(thread);',
    '    }',
    '    for (Thread thread : threads) thread.join();',
    '  }',
    '',
    '  static PrivateKey pkcs8(String pem, String algorithm) throws Exception {',
    '    String base64 = pem.replaceAll("-----[A-Z ]+-----", "");',
    '    byte[] der = Base64.getMimeDecoder().decode(base64);',
    '    return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));',
    '  }',
    '',
    '  static String base64url(String text) {',
    '    return BASE64URL.encodeToString(text.getBytes(StandardCharsets.UTF_8));',
    '  }',
    ...(serviceAccount
      ? [
          '',
          '  /** The text of a string field of a JSON object, still escaped as JSON. */',
          '  static String jsonField(String json, String name) {',
          '    String string = "\\"([^\\"\\\\\\\\]*+(?:\\\\\\\\.[^\\"\\\\\\\\]*+)*+)\\"";',
          '    Matcher m = Pattern.compile("\\"" + name + "\\"\\\\s*:\\\\s*" + string).matcher(json);',
          '    if (!m.find()) throw new IllegalArgumentException("The key file has no " + name);',
          '    return m.group(1);',
          '  }',
        ]
      : [
          '',
          '  /** `text` as a JSON string. */',
          '  static String jsonString(String text) {',
          '    StringBuilder json = new StringBuilder("\\"");',
          '    for (char c : text.toCharArray()) {',
          '      if (c == \'"\' || c == \'\\\\\') json.append(\'\\\\\').append(c);',
          '      else if (c < 0x20) json.append(String.format("\\\\u%04x", (int) c));',
          '      else json.append(c);',
          '    }',
          '    return json.append(\'"\').toString();',
          '  }',
        ]),
    '}',
    '',
  ].join('\n');
}

function fetchMethod(program: RestCodeProgram): string {
  const { request } = program;
  const refused = [
    'if (answer.statusCode() / 100 != 2) {',
    '  throw new IllegalStateException("worker " + worker + ": " + answer.statusCode() + " " + answer.body());',
    '}',
  ];
  if (!request.pages) {
    return [
      '  static void fetch(int worker) throws Exception {',
      '    HttpResponse<String> answer = get(URL);',
      ...refused.map((l) => `    ${l}`),
      request.csv ? '    System.out.println(answer.body());' : '    System.out.println("worker " + worker + ": " + answer.body());',
      '  }',
    ].join('\n');
  }
  return [
    '  static final Pattern NEXT = Pattern.compile("\\"next\\"\\\\s*:\\\\s*\\"([^\\"]+)\\"");',
    '',
    '  static void fetch(int worker) throws Exception {',
    '    String url = URL;',
    '    for (int page = 1; url != null; page++) {',
    '      HttpResponse<String> answer = get(url); // a new token for every page',
    ...refused.map((l) => `      ${l}`),
    '      System.out.println("worker " + worker + " page " + page + ": " + answer.body());',
    '      Matcher next = NEXT.matcher(answer.body());',
    '      url = next.find() ? next.group(1).replace("\\\\/", "/") : null;',
    '      if (url != null && !url.startsWith(BASE_URL + "/")) {',
    '        throw new IllegalStateException("links.next leaves " + BASE_URL + ": " + url);',
    '      }',
    '    }',
    '  }',
  ].join('\n');
}
