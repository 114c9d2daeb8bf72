(function (native) {
  'use strict';
  // How far the function header shifts columns on a module's first line (see compileFunction),
  // for readers of stacks such as the core's task locations.
  Object.defineProperty(globalThis, Symbol.for('anna.firstLineShift'), { value: native.firstLineShift });
  // For readers of stacks: `(url, line, column)` -> `{ file, line, column }` in the file that
  // code compiled from another language (a `.ts` module, run as `<file>.js`) came from, or null.
  Object.defineProperty(globalThis, Symbol.for('anna.originalPlace'), { value: native.originalPlace });
  const cache = Object.create(null);

  function directoryOf(path) {
    const slash = path.lastIndexOf('/');
    return slash <= 0 ? '/' : path.slice(0, slash);
  }

  function loadJSON(filename) {
    try {
      return JSON.parse(native.read(filename));
    } catch (error) {
      if (error instanceof SyntaxError) error.message = filename + ': ' + error.message;
      throw error;
    }
  }

  // Where `module` called require: 'file:line:column' of the first frame in its file, or
  // null when the call came from elsewhere (a helper handed its require).
  // A `.ts` module runs as `<file>.js`: its place is translated to the `.ts` file (final:
  // no shift to undo).
  function callSite(stack, filename) {
    const lines = String(stack || '').split('\n');
    const generated = filename.endsWith('.ts') ? filename + '.js' : null;
    for (let index = 0; index < lines.length; index++) {
      const url = generated !== null && lines[index].lastIndexOf('@' + generated + ':') !== -1 ? generated : filename;
      const at = lines[index].lastIndexOf('@' + url + ':');
      if (at === -1) continue;
      const place = lines[index].slice(at + url.length + 2).split(':');
      const line = parseInt(place[0], 10);
      const column = parseInt(place[1], 10);
      if (url === generated) {
        const original = native.originalPlace(url, line, column);
        if (original !== null) return { line: original.line, column: original.column };
      }
      // As the engine gives it: readers unshift a module's first line (firstLineShift).
      return { line: line, column: column };
    }
    return null;
  }

  // Resolves a module's request. A failure names the requiring file and line (resolving
  // once more, now with that place, so the message is made in one place) and carries Node's
  // `requireStack` (the requiring file, then its requirers); its sourceURL/line/column
  // point at the require call, not at this file.
  function resolveFor(parent, request, directory) {
    try {
      return native.resolve(request, directory);
    } catch (failure) {
      const code = failure && failure.code;
      if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_ACCESS_DENIED') throw failure;
      const site = callSite(new Error().stack, parent.filename);
      let error = failure;
      try {
        native.resolve(request, directory, site ? parent.filename + ':' + site.line : parent.filename);
      } catch (located) {
        error = located;
      }
      const requireStack = [];
      for (let module = parent; module; module = module.parent) requireStack.push(module.filename);
      error.requireStack = requireStack;
      error.sourceURL = parent.filename;
      error.line = site ? site.line : undefined;
      error.column = site ? site.column : undefined;
      throw error;
    }
  }

  function makeRequire(directory, parent) {
    function require(request) {
      if (typeof request !== 'string' || request.length === 0) {
        throw new TypeError('require(id): id must be a non-empty string, got ' + String(request));
      }
      const filename = parent ? resolveFor(parent, request, directory) : native.resolve(request, directory);
      const cached = cache[filename];
      if (cached !== undefined) return cached.exports;
      const module = {
        id: filename, filename: filename, path: directoryOf(filename),
        exports: {}, loaded: false, parent: parent, children: [],
      };
      module.require = makeRequire(module.path, module);
      // Inserted before evaluation so that cyclic requires get the partial exports.
      cache[filename] = module;
      let finished = false;
      try {
        if (filename.endsWith('.json')) {
          module.exports = loadJSON(filename);
        } else {
          const wrapper = native.compile(filename);
          wrapper.call(module.exports, module.exports, module.require, module, filename, module.path);
        }
        finished = true;
      } finally {
        if (!finished && cache[filename] === module) delete cache[filename];
      }
      module.loaded = true;
      if (parent) parent.children.push(module);
      return module.exports;
    }
    require.resolve = function resolve(request) { return native.resolve(request, directory); };
    require.cache = cache;
    return require;
  }

  function inspect(value, ancestors) {
    switch (typeof value) {
      case 'string': return JSON.stringify(value);
      case 'undefined': return 'undefined';
      case 'function': return '[Function: ' + (value.name || 'anonymous') + ']';
      case 'symbol': return value.toString();
      case 'bigint': return value.toString() + 'n';
      case 'number': return Object.is(value, -0) ? '-0' : String(value);
      case 'boolean': return String(value);
    }
    if (value === null) return 'null';
    if (value instanceof Error) return value.stack ? value.name + ': ' + value.message + '\n' + value.stack : String(value);
    if (value instanceof Date) return value.toISOString();
    if (ancestors.indexOf(value) !== -1) return '[Circular]';
    ancestors.push(value);
    let text;
    if (Array.isArray(value)) {
      text = '[' + value.map(function (element) { return inspect(element, ancestors); }).join(',') + ']';
    } else {
      text = '{' + Object.keys(value).map(function (key) {
        return JSON.stringify(key) + ':' + inspect(value[key], ancestors);
      }).join(',') + '}';
    }
    ancestors.pop();
    return text;
  }

  function format(args) {
    let line = '';
    for (let index = 0; index < args.length; index++) {
      if (index > 0) line += ' ';
      line += typeof args[index] === 'string' ? args[index] : inspect(args[index], []);
    }
    return line;
  }

  const levels = ['log', 'info', 'debug', 'warn', 'error'];
  const console = {};
  levels.forEach(function (name, level) {
    console[name] = function () { native.write(level, format(arguments)); };
  });
  globalThis.console = console;
  globalThis.global = globalThis;
  return makeRequire;
})
