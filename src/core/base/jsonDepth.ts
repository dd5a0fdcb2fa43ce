/**
 * Deepest nesting a JSON value from outside (a token's claims, a response body) may have before it
 * is refused. Real MDS bodies and JWT claims nest fewer than ten levels; JSON.parse copes with any
 * depth, but JSON.stringify, structured clone and every recursive walk overflow the stack at a few
 * thousand levels, so a hostile value that deep would crash whatever renders it.
 */
export const MAX_JSON_DEPTH = 256;

/**
 * True when the JSON text nests arrays and objects deeper than `maxDepth`. One pass over the text,
 * no recursion; brackets inside strings do not count. Meant for text JSON.parse accepts (or will be
 * given to it): for other text the answer is still bounded and never throws.
 */
export function jsonNestsDeeperThan(text: string, maxDepth: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return false;
}
