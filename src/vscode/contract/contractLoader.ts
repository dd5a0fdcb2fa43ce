import path from 'node:path';

/** What dist/contract.js exports (a type only: importing the engine itself would put ajv into the activation bundle). */
export type ContractEngine = typeof import('./contract.bundle');

/** The contract runner (dist/contract.js), loaded when a test first runs; Node caches the module after that. */
export function loadContractEngine(): ContractEngine {
  // A computed path, so that esbuild leaves this require to run time.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(path.join(__dirname, 'contract.js')) as ContractEngine;
}
