// Preloaded into @vscode/l10n-dev's CLI by scripts/l10n.mjs: its analyzer compiles the same two tree-sitter queries
// again for every source file (most of its 38 processor-seconds over src/); compiled once per grammar, they give the
// same matches. web-tree-sitter's Language exists only once init() has run, so the patch waits for it.
const Parser = require('web-tree-sitter');

const init = Parser.init;
Parser.init = async function (...args) {
  await init.apply(this, args);
  const language = Parser.Language?.prototype;
  // Another web-tree-sitter than 0.20's: left as it is (slower, the same result).
  if (typeof language?.query !== 'function' || language.query.cached) return;
  const query = language.query;
  const compiled = new WeakMap();
  language.query = Object.assign(
    function (source) {
      let byGrammar = compiled.get(this);
      if (!byGrammar) compiled.set(this, (byGrammar = new Map()));
      if (!byGrammar.has(source)) byGrammar.set(source, query.call(this, source));
      return byGrammar.get(source);
    },
    { cached: true },
  );
};
