import ArgumentParser
import CoreJS
import Foundation

/// `anna build`: a copy of a module with its TypeScript compiled to JavaScript, for apps that
/// ship JavaScript only.
struct BuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build",
        abstract: "Write a copy of a module folder with its .ts files compiled to .js.",
        discussion: """
            Copies DIR to OUT (a new folder), compiling each .ts file (not .d.ts) to a
            .js file of the same name with an inline source map, as anna run compiles
            it; .d.ts files and tsconfig.json are left out, every other file is copied.
            A syntax error, or a name with both a .js and a .ts file, is reported with
            file:line and nothing is written (exit 1). OUT must not exist (exit 73).

            Example:
              anna build shop-analytics --out build/shop-analytics
            """)

    @Argument(help: ArgumentHelp("The module (or task) folder.", valueName: "dir"))
    var directory: String

    @Option(name: .customLong("out"), help: ArgumentHelp("The folder to write (must not exist).", valueName: "dir"))
    var output: String

    func run() throws {
        let files = FileManager.default
        let source = URL(fileURLWithPath: directory).standardizedFileURL
        var isFolder: ObjCBool = false
        guard files.fileExists(atPath: source.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw CommandFailure("anna: no such folder: \(source.path)", exitCode: ExitCodes.noInput)
        }
        let target = URL(fileURLWithPath: output).standardizedFileURL
        guard !files.fileExists(atPath: target.path) else {
            throw CommandFailure("anna: \(target.path) exists; anna build writes a new folder", exitCode: ExitCodes.cannotCreate)
        }
        TypeScriptCache.install()
        let plan = try ModuleBuild.plan(source)
        if !plan.problems.isEmpty {
            for problem in plan.problems { printError(problem) }
            throw CommandFailure(
                "anna: nothing written: \(Plural.count(plan.problems.count, "problem")) in \(source.path)", exitCode: ExitCodes.failure)
        }
        // Written beside OUT, then renamed: OUT holds a whole build or nothing.
        let staging = target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).partial-\(getpid())")
        do {
            for file in plan.files {
                let destination = staging.appendingPathComponent(file.relative)
                try files.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
                try file.contents.write(to: destination)
            }
            try files.createDirectory(at: staging, withIntermediateDirectories: true)
            try files.moveItem(at: staging, to: target)
        } catch {
            ModuleBuild.remove(staging)
            throw CommandFailure("anna: cannot write \(target.path): \(error.localizedDescription)", exitCode: ExitCodes.cannotCreate)
        }
        printOutput(
            "built \(target.path): \(Plural.count(plan.files.count, "file")), \(plan.compiled) compiled from TypeScript")
    }
}

/// What `anna build` writes: each file of a module by its path relative to the module, with
/// its contents (compiled for `.ts` files), and the problems that stop the build.
enum ModuleBuild {
    struct File {
        var relative: String
        var contents: Data
    }

    struct Plan {
        var files: [File] = []
        var compiled = 0
        var problems: [String] = []
    }

    static func plan(_ folder: URL) throws -> Plan {
        let files = FileManager.default
        guard let enumerator = files.enumerator(atPath: folder.path) else {
            throw CommandFailure("anna: cannot list \(folder.path)", exitCode: ExitCodes.noInput)
        }
        var plan = Plan()
        var relatives: [String] = []
        while let relative = enumerator.nextObject() as? String { relatives.append(relative) }
        let present = Set(relatives)
        for relative in relatives.sorted() {
            let path = folder.appendingPathComponent(relative).path
            var isFolder: ObjCBool = false
            guard files.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            let name = (relative as NSString).lastPathComponent
            if relative.hasSuffix(".d.ts") || name == "tsconfig.json" { continue }
            guard let data = files.contents(atPath: path) else {
                plan.problems.append("\(path): cannot be read")
                continue
            }
            guard relative.hasSuffix(".ts") else {
                plan.files.append(File(relative: relative, contents: data))
                continue
            }
            let stem = String(relative.dropLast(3))
            if present.contains(stem + ".js") {
                plan.problems.append("\(path): \(stem).js is there too: keep one of them")
                continue
            }
            do {
                let output = try TypeScriptCompiler.shared.transpile(String(decoding: data, as: UTF8.self), fileName: path)
                let map = Data(output.sourceMapJSON.utf8).base64EncodedString()
                let code = output.javaScript + "//# sourceMappingURL=data:application/json;base64,\(map)\n"
                plan.files.append(File(relative: stem + ".js", contents: Data(code.utf8)))
                plan.compiled += 1
            } catch let JavaScriptError.exception(exception) {
                plan.problems.append("\(exception.location ?? path): \(exception.name): \(exception.message)")
            } catch {
                plan.problems.append("\(path): \(error)")
            }
        }
        return plan
    }

    /// Removes a partial build; a failure is said, not thrown (the build's own error is the news).
    static func remove(_ folder: URL) {
        guard FileManager.default.fileExists(atPath: folder.path) else { return }
        do {
            try FileManager.default.removeItem(at: folder)
        } catch {
            printError("anna: warning: could not remove \(folder.path): \(error.localizedDescription)")
        }
    }
}
