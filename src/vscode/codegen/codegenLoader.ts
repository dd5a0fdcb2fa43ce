import path from 'node:path';

/** What dist/codegen.js exports (a type only: importing the engine itself would put it into the activation bundle). */
export type CodegenEngine = typeof import('./codegen.bundle');

/** Copy as Code's program writers (dist/codegen.js), loaded on first use; Node caches the module after that. */
export function loadCodegen(): CodegenEngine {
  // A computed path, so that esbuild leaves this require to run time.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(path.join(__dirname, 'codegen.js')) as CodegenEngine;
}
