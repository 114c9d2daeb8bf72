import Anna
import CoreJS
import Foundation

/// Loads every task file of a folder on its own, collecting its patterns and problems.
struct TaskFileChecker {
    /// What one file holds.
    struct FileReport {
        var patterns: [(line: Int?, pattern: String)] = []
        var problems: [(line: Int?, message: String)] = []
    }

    let taskFolder: String
    var timeLimit: Double = 2

    /// Every `.js` file below the folder (outside `node_modules`), sorted by path.
    func taskFiles() -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: taskFolder) else { return [] }
        var files: [String] = []
        while let relative = enumerator.nextObject() as? String {
            if relative.split(separator: "/").contains("node_modules") { continue }
            if relative.hasSuffix(".js") { files.append(taskFolder + "/" + relative) }
        }
        return files.sorted()
    }

    /// Checks one file in a fresh runtime: requires it (as a run would; a syntax error is
    /// reported with its line) with a collecting `match` that validates each pattern with
    /// the bundled core's grammar.
    func check(_ file: String) -> FileReport {
        var report = FileReport()
        // Modules are known by their real paths; errors and stacks name those.
        let file = LocalFileAccess().canonicalPath(file)
        let core = BundledCore.folderURL.path
        do {
            let runtime = try CommonJSRuntime(
                context: JavaScriptContext(executionTimeLimit: timeLimit),
                configuration: .init(
                    searchPaths: [ModulePath.directory(of: core)], allowedRoots: [taskFolder, core],
                    console: Console(output: MemoryOutputSink()), baseDirectory: taskFolder))
            let collect = try runtime.context.evaluate(Self.collectorSource, sourceURL: "anna:check.js")
            let parsePattern = try runtime.require("anna").property("parsePattern")
            let found = try collect.call([runtime.context.makeValue(.string(file)), parsePattern]).toJSON()
            for entry in found["patterns"]?.arrayValue ?? [] {
                report.patterns.append((entry["line"]?.numberValue.map { Int($0) }, entry["pattern"]?.stringValue ?? ""))
            }
            for entry in found["problems"]?.arrayValue ?? [] {
                report.problems.append((entry["line"]?.numberValue.map { Int($0) }, entry["message"]?.stringValue ?? ""))
            }
        } catch {
            report.problems.append((nil, "\(error)"))
        }
        return report
    }

    /// Runs a task file with a global `match` that records each pattern and the line it is on.
    static let collectorSource = #"""
    (function (file, parsePattern) {
      const patterns = [];
      const problems = [];
      function lineOf(stack) {
        const lines = String(stack || '').split('\n');
        for (const entry of lines) {
          const at = entry.lastIndexOf(file + ':');
          if (at !== -1) return parseInt(entry.slice(at + file.length + 1), 10);
        }
        return null;
      }
      const had = Object.prototype.hasOwnProperty.call(globalThis, 'match');
      const previous = globalThis.match;
      globalThis.match = function match(list, fn) {
        const line = lineOf(new Error().stack);
        const all = Array.isArray(list) ? list : [list];
        if (all.length === 0) problems.push({ line, message: 'match() was given no pattern' });
        for (const pattern of all) {
          try {
            parsePattern(pattern, file);
            patterns.push({ line, pattern });
          } catch (error) {
            problems.push({ line, message: error.name + ': ' + error.message });
          }
        }
        if (typeof fn !== 'function') {
          problems.push({ line, message: 'match(' + JSON.stringify(all[0]) + ', …) needs a function as its second argument' });
        }
      };
      try {
        require(file);
      } catch (error) {
        const line = error && error.sourceURL === file ? error.line : lineOf(error && error.stack);
        problems.push({ line, message: (error && error.name ? error.name + ': ' + error.message : String(error)) });
      } finally {
        if (had) globalThis.match = previous; else delete globalThis.match;
      }
      return { patterns, problems };
    })
    """#
}
