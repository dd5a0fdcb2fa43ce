// A `.proto` file imported by the gRPC core is bundled as its text (esbuild's `text` loader, esbuild.js).
declare module '*.proto' {
  const text: string;
  // eslint-disable-next-line no-restricted-syntax -- esbuild's text loader gives a default export
  export default text;
}
