// The jose functions the extension host uses, imported by `await import('./joseOnDemand')` where they
// are needed: jose then sets itself up on the first token signed or verified, not when the extension
// activates, and the bundle keeps only these functions of it.
export { SignJWT, compactVerify } from 'jose';
