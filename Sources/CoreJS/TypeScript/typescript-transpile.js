// Evaluated in the TypeScript compiler's own context, after TypeScript's `typescript.js`
// (which leaves its namespace in the global `ts`). Returns the function the host calls:
// `transpile(source, fileName)` -> JSON text of `{ code, map, diagnostics }`, where each
// diagnostic is `{ line, column, message, code, word }` (1-based; `word` is the identifier at
// its place, so the host can name syntax newer than this compiler).
(function (ts) {
  'use strict';
  const compilerOptions = {
    target: ts.ScriptTarget.ES2017,
    module: ts.ModuleKind.CommonJS,
    sourceMap: true,
    esModuleInterop: true,
    isolatedModules: true,
    // Every file is a module (its own scope, strict mode), with or without import lines.
    moduleDetection: ts.ModuleDetectionKind.Force,
    newLine: ts.NewLineKind.LineFeed,
  };
  const WORD = /^[A-Za-z_$][A-Za-z0-9_$]*/;

  function diagnostic(entry, source) {
    let line = null;
    let column = null;
    let word = null;
    if (entry.file !== undefined && typeof entry.start === 'number') {
      const at = entry.file.getLineAndCharacterOfPosition(entry.start);
      line = at.line + 1;
      column = at.character + 1;
      const found = WORD.exec(source.slice(entry.start, entry.start + 40));
      if (found !== null) word = found[0];
    }
    return {
      line, column, word, code: entry.code,
      message: ts.flattenDiagnosticMessageText(entry.messageText, '\n'),
      error: entry.category === ts.DiagnosticCategory.Error,
    };
  }

  return function transpile(source, fileName) {
    const output = ts.transpileModule(source, { compilerOptions, fileName, reportDiagnostics: true });
    const diagnostics = (output.diagnostics || []).map((entry) => diagnostic(entry, source));
    // The map travels beside the code: the trailing `//# sourceMappingURL` comment goes.
    const code = output.outputText.replace(/\n\/\/# sourceMappingURL=[^\n]*\n?$/, '\n');
    return JSON.stringify({ code, map: output.sourceMapText || null, diagnostics });
  };
})(ts)
