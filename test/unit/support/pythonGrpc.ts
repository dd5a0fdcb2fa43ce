// A gRPC client that is not ours: Debian's Python grpcio (python3-grpcio, which .ci/run installs),
// the client the outside audits used. It sends what Node's HTTP/2 client refuses to send, such as
// two `authorization` fields on one call. Runs asynchronously: the sandbox answering it lives in
// the test's own process.
import { execFile, spawnSync } from 'node:child_process';

const PYTHON = '/usr/bin/python3';

/** Unary calls with raw bytes (an empty message), one after the other on one channel; prints one JSON line. */
const SCRIPT = `
import json, sys, grpc
spec = json.load(sys.stdin)
channel = grpc.insecure_channel(spec["target"])
out = []
for call in spec["calls"]:
    method = channel.unary_unary(call["method"])
    try:
        method(b"", metadata=[tuple(m) for m in call["metadata"]], timeout=call["timeoutSeconds"])
        out.append({"code": "OK", "details": ""})
    except grpc.RpcError as e:
        out.append({"code": e.code().name, "details": e.details() or ""})
channel.close()
print(json.dumps(out))
`;

/** One call: the method path, its metadata as sent (names may repeat), its deadline. */
export interface PythonCall {
  method: string;
  metadata: Array<[string, string]>;
  timeoutSeconds: number;
}

/** The status a call ended with: its code's name (`OK`, `NOT_FOUND`…) and message. */
export interface PythonCallResult {
  code: string;
  details: string;
}

/** What this machine lacks to run the client, empty when it can. */
export function missingPythonGrpc(): string[] {
  return spawnSync(PYTHON, ['-c', 'import grpc'], { stdio: 'ignore' }).status === 0 ? [] : ['python3-grpcio'];
}

/** Skips the test when grpcio is missing, and fails it under CI=true (where .ci/run installs it). */
export function skipUnlessPythonGrpc(context: Mocha.Context): void {
  const missing = missingPythonGrpc();
  if (missing.length === 0) return;
  if (process.env.CI === 'true') throw new Error(`missing ${missing.join(', ')} (.ci/run installs it)`);
  context.skip();
}

/** Runs the calls against `target` (plaintext) with Python grpcio. */
export function pythonGrpcCalls(target: string, calls: PythonCall[]): Promise<PythonCallResult[]> {
  return new Promise((resolve, reject) => {
    const child = execFile(PYTHON, ['-c', SCRIPT], { encoding: 'utf8', maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`python3 grpcio client failed: ${err.message}\n${stderr}`));
      try {
        resolve(JSON.parse(stdout) as PythonCallResult[]);
      } catch {
        reject(new Error(`python3 grpcio client printed no JSON: ${stdout}\n${stderr}`));
      }
    });
    child.stdin?.end(JSON.stringify({ target, calls }));
  });
}
