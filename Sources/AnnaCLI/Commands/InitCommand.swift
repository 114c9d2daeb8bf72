import Anna
import ArgumentParser
import CoreJS
import Foundation

/// `anna init`: scaffolds an analytics module that `anna run` accepts at once.
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create an analytics module folder with a sample task and a sample session.",
        discussion: """
            Writes DIR/index.js (the module: the bundled core configured with
            DIR/task), DIR/task/index.js (one sample task), DIR/jsconfig.json and
            DIR/types/anna/index.d.ts (typings for editors), and, beside the module
            folder, DIR.session.ndjson (a sample event stream: an app bundles the
            module folder, and a recording has no place in it). DIR must be new or
            empty and DIR.session.ndjson must not exist (exit 73 otherwise): no
            file is ever replaced. An empty DIR is refused (exit 64). With
            --typescript the module and its task are TypeScript (index.ts,
            task/index.ts) and DIR/tsconfig.json makes editors and
            anna check --typecheck check them against the typings.

            Examples:
              anna init shop-analytics
              anna init --typescript shop-analytics
              anna run --events shop-analytics.session.ndjson --module shop-analytics
            """)

    @Argument(help: ArgumentHelp("The folder to create (new or empty).", valueName: "dir"))
    var directory: String

    @Flag(name: .customLong("typescript"), help: "Write the module and its task in TypeScript, with a tsconfig.json.")
    var typeScript = false

    func validate() throws {
        guard !directory.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ValidationError("anna init needs a folder name, such as 'anna init shop-analytics'; got an empty one.")
        }
    }

    /// Where the sample session goes: beside the module folder, named after it
    /// (`shop-analytics.session.ndjson`); a folder named `.` or `..` is named by its path.
    var sessionPath: String {
        var folder = directory
        while folder.count > 1, folder.hasSuffix("/") { folder.removeLast() }
        let last = (folder as NSString).lastPathComponent
        if last == "." || last == ".." || folder == "/" {
            folder = URL(fileURLWithPath: folder).standardizedFileURL.path
        }
        return folder + ".session.ndjson"
    }

    func run() throws {
        let files = FileManager.default
        var isFolder: ObjCBool = false
        if files.fileExists(atPath: directory, isDirectory: &isFolder) {
            guard isFolder.boolValue else {
                throw CommandFailure("anna: \(directory) is a file; anna init needs a new or empty folder", exitCode: ExitCodes.cannotCreate)
            }
            let contents: [String]
            do {
                contents = try files.contentsOfDirectory(atPath: directory)
            } catch {
                throw CommandFailure("anna: cannot read \(directory): \(error.localizedDescription)", exitCode: ExitCodes.cannotCreate)
            }
            guard contents.isEmpty else {
                throw CommandFailure(
                    "anna: \(directory) is not empty (\(Plural.count(contents.count, "entry", plural: "entries"))); "
                        + "anna init needs a new or empty folder", exitCode: ExitCodes.cannotCreate)
            }
        }
        let session = sessionPath
        guard !files.fileExists(atPath: session) else {
            throw CommandFailure(
                "anna: \(session) exists; anna init never replaces a file (move it, or choose another folder name)", exitCode: ExitCodes.cannotCreate)
        }
        var written = (typeScript ? ModuleScaffold.typeScriptFiles : ModuleScaffold.files).map { (path: "\(directory)/\($0.name)", text: $0.text) }
        let typings = BundledCore.folderURL.appendingPathComponent("index.d.ts")
        do {
            written.append(("\(directory)/\(ModuleScaffold.typingsPath)", try String(contentsOf: typings, encoding: .utf8)))
        } catch {
            let config = typeScript ? "tsconfig.json" : "jsconfig.json"
            printError("anna: warning: no typings written (cannot read \(typings.path): \(error.localizedDescription)); \(config) points at them")
        }
        written.append((session, ModuleScaffold.session))
        for (path, text) in written {
            let url = URL(fileURLWithPath: path)
            do {
                try files.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                // Never replaces a file, even one that appeared since the check above.
                try Data(text.utf8).write(to: url, options: .withoutOverwriting)
            } catch {
                let reason = files.fileExists(atPath: path) ? "it exists, and anna init never replaces a file" : error.localizedDescription
                throw CommandFailure("anna: cannot write \(path): \(reason)", exitCode: ExitCodes.cannotCreate)
            }
            printOutput("created \(path)" + (path == session ? " (a sample session, beside the module: apps bundle the module folder)" : ""))
        }
        printOutput("next: anna run --events \(session) --module \(directory)")
    }
}

/// The files of a new module, by path relative to its folder.
enum ModuleScaffold {
    /// Where the core's typings go (jsconfig.json maps `anna` there).
    static let typingsPath = "types/anna/index.d.ts"

    static let files: [(name: String, text: String)] = [
        (
            "index.js",
            """
            // The analytics module: the bundled core, running the tasks in ./task.
            module.exports = require('anna').configured({ task: __dirname + '/task' });

            """
        ),
        (
            "task/index.js",
            """
            // Tasks: match(pattern, (node) => result). A pattern is a focus path ending in an event
            // name; whatever the function returns (other than undefined) is a result.
            // task/Name.js holds the tasks of nodes registered with the namespace 'Name'.
            match('list/item/did-select', (node) => ({
              action: 'selected',
              item: node.index,
              title: node.latestValue('title'),
            }));

            """
        ),
        (
            "jsconfig.json",
            """
            {
              "compilerOptions": {
                "checkJs": true,
                "module": "commonjs",
                "target": "es2020",
                "baseUrl": ".",
                "paths": { "anna": ["./types/anna"] }
              },
              "include": ["index.js", "task/**/*.js", "types/**/*.d.ts"]
            }

            """
        ),
    ]

    /// The files of a new TypeScript module (`anna init --typescript`), by path relative to its folder.
    static let typeScriptFiles: [(name: String, text: String)] = [
        (
            "index.ts",
            """
            // The analytics module: the bundled core, running the tasks in ./task.
            import anna = require('anna');

            export = anna.configured({ task: __dirname + '/task' });

            """
        ),
        (
            "task/index.ts",
            """
            // Tasks: match(pattern, (node) => result). A pattern is a focus path ending in an event
            // name; whatever the function returns (other than undefined) is a result.
            // task/Name.ts holds the tasks of nodes registered with the namespace 'Name'.
            import type { AnnaNode } from 'anna';

            interface Selection {
              action: 'selected';
              item: number | null;
              title: unknown;
            }

            match('list/item/did-select', (node: AnnaNode): Selection => ({
              action: 'selected',
              item: node.index,
              title: node.latestValue('title'),
            }));

            """
        ),
        (
            "tsconfig.json",
            """
            {
              "compilerOptions": {
                "noEmit": true,
                "strict": true,
                "target": "es2017",
                "lib": ["es2017"],
                "module": "commonjs",
                "esModuleInterop": true,
                "moduleDetection": "force",
                "types": [],
                "baseUrl": ".",
                "paths": { "anna": ["./types/anna"] }
              },
              "include": ["index.ts", "task/**/*.ts", "types/**/*.d.ts"]
            }

            """
        ),
    ]

    /// The sample session, written beside the module folder.
    static let session =
        """
        {"op":"version","version":1}
        // A sample session: a home screen with a list; the user selects its item 4.
        {"op":"register","id":1,"parent":null,"name":"__root__","time":1700000000000}
        {"op":"register","id":2,"parent":1,"name":"home","time":1700000000001}
        {"op":"register","id":[2,"list"],"parent":2,"name":"list","time":1700000000002}
        {"op":"register","id":3,"parent":[2,"list"],"name":"item","index":4,"time":1700000000003}
        {"op":"appear","id":2,"time":1700000000004}
        {"op":"update","id":3,"keyPath":"title","value":"Boots","time":1700000000005}
        {"op":"event","id":3,"name":"did-select","time":1700000000006}

        """
}
