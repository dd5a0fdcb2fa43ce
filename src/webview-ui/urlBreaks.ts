// Where a URL may wrap in a narrow panel: after "/", "?" and "&" only, so that a host name, a port or
// a path segment ("127.0.0.1:44343", "mds-staging") never splits across lines. Pure (no DOM), so it is
// tested in plain Node; dom.ts turns the pieces into text nodes with <wbr> between them.

/** `url` cut after every "/", "?" and "&"; joining the pieces gives `url` back. Runs of "/" stay together. */
export function urlBreakPieces(url: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  for (let i = 0; i < url.length; i++) {
    const c = url[i];
    if ((c === '/' || c === '?' || c === '&') && url[i + 1] !== '/') {
      pieces.push(url.slice(start, i + 1));
      start = i + 1;
    }
  }
  if (start < url.length) pieces.push(url.slice(start));
  return pieces;
}
