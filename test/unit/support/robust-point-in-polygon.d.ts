// robust-point-in-polygon ships no types: the one function the geography tests use as a second opinion.
declare module 'robust-point-in-polygon' {
  /** -1 inside the loop, 0 on its boundary, 1 outside; exact arithmetic. */
  function classifyPoint(loop: readonly (readonly number[])[], point: readonly number[]): -1 | 0 | 1;
  export = classifyPoint;
}
