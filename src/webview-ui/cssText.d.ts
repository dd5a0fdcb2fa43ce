// esbuild bundles the notebook renderer's stylesheets as text (its `.css` loader is `text`), which the renderer puts
// into a <style> element of its output; the panel's bundle imports its stylesheet for its side effect only.
declare module '*.css' {
  const text: string;
  // esbuild's text loader gives the file's text as the module's default export: no name to export it by.
  // eslint-disable-next-line no-restricted-syntax
  export default text;
}
