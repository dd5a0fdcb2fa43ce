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
 *
 * A string is skipped with `indexOf` to its closing quote (a quote after an even run of backslashes)
 * rather than character by character: keys and values are most of an MDS body, and the scan took
 * about as long as JSON.parse itself.
 */
export function jsonNestsDeeperThan(text: string, maxDepth: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      for (;;) {
        i = text.indexOf('"', i + 1);
        if (i === -1) return false; // an unterminated string: nothing after it counts
        let k = i - 1;
        while (text.charCodeAt(k) === 0x5c /* \ */) k--;
        if ((i - 1 - k) % 2 === 0) break;
      }
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return false;
}

/**
 * True when a parsed JSON value nests arrays and objects deeper than `maxDepth`: the same answer as
 * {@link jsonNestsDeeperThan} on its text (for text whose keys are not repeated). It visits each
 * array and object once and recurses at most `maxDepth` levels, so it never overflows the stack;
 * after JSON.parse (which copes with any depth) it is several times quicker than scanning the text.
 */
export function valueNestsDeeperThan(value: unknown, maxDepth: number = MAX_JSON_DEPTH): boolean {
  return typeof value === 'object' && value !== null && nestsDeeper(value, maxDepth - 1);
}

/** Whether the children of `container` nest more than `levels` further levels. */
function nestsDeeper(container: object, levels: number): boolean {
  if (levels < 0) return true;
  if (Array.isArray(container)) {
    for (let i = 0; i < container.length; i++) {
      const child: unknown = container[i];
      if (typeof child === 'object' && child !== null && nestsDeeper(child, levels - 1)) return true;
    }
    return false;
  }
  const record = container as Record<string, unknown>;
  for (const key in record) {
    const child = record[key];
    if (typeof child === 'object' && child !== null && nestsDeeper(child, levels - 1)) return true;
  }
  return false;
}
