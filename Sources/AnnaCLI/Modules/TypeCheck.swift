import Anna
import Foundation

/// `anna check --typecheck`: TypeScript's own checker (`tsc --noEmit`) over a module's `.ts`
/// files, against the bundled core's typings. A module with a `tsconfig.json` (as
/// `anna init --typescript` writes) is checked with it; any other with the options of
/// ``compilerOptions``, `anna` mapped to the bundled `index.d.ts`.
struct TypeCheck {
    /// The environment variable naming `tsc`, before `PATH`.
    static let tscVariable = "ANNA_TSC"

    /// One problem `tsc` found: `file:line:column: error TS2322: …` (absolute path).
    var problems: [String] = []

    /// The options a module without its own `tsconfig.json` is checked with (those Anna
    /// compiles task files with, plus `strict`).
    static func compilerOptions(typings: String) -> JSONValue {
        [
            "noEmit": true, "strict": true, "target": "es2017", "lib": ["es2017"], "module": "commonjs", "esModuleInterop": true,
            "moduleDetection": "force", "skipLibCheck": true, "types": [], "paths": ["anna": [.string(typings)]],
            "baseUrl": "/",
        ]
    }

    /// The `tsc` to run: `ANNA_TSC`, else the first on `PATH`; nil when there is none (or
    /// `ANNA_TSC` names no program).
    static func locateTsc(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let named = environment[tscVariable], !named.isEmpty {
            return FileManager.default.isExecutableFile(atPath: named) ? named : nil
        }
        for folder in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(folder)/tsc"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Checks the `.ts` files of `moduleFolder` (its `index.ts`, when a module) and `taskFolder`.
    /// - Throws: ``CommandFailure`` when `tsc` is missing or cannot run.
    static func run(moduleFolder: String?, taskFolder: String) throws -> TypeCheck {
        guard let tsc = locateTsc() else {
            throw CommandFailure(
                "anna: --typecheck needs TypeScript's tsc, which is not installed: apt-get install node-typescript "
                    + "(or npm install -g typescript), or set \(tscVariable) to a tsc", exitCode: ExitCodes.failure)
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("anna-typecheck-\(UUID().uuidString)")
        defer { removeScratch(scratch) }
        var arguments = ["--noEmit", "--pretty", "false", "-p"]
        if let moduleFolder, FileManager.default.fileExists(atPath: moduleFolder + "/tsconfig.json") {
            arguments.append(moduleFolder + "/tsconfig.json")
        } else {
            var files = Coverage.taskFiles(under: taskFolder).filter { $0.hasSuffix(".ts") }
            if let moduleFolder, FileManager.default.fileExists(atPath: moduleFolder + "/index.ts") {
                files.insert(moduleFolder + "/index.ts", at: 0)
            }
            if files.isEmpty { return TypeCheck() }
            let typings = BundledCore.folderURL.appendingPathComponent("index.d.ts").path
            let config: JSONValue = [
                "compilerOptions": compilerOptions(typings: typings), "files": .array(files.map { .string($0) }),
            ]
            do {
                try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
                try Data(config.jsonText.utf8).write(to: scratch.appendingPathComponent("tsconfig.json"))
            } catch {
                throw CommandFailure("anna: --typecheck cannot write its tsconfig.json: \(error.localizedDescription)", exitCode: ExitCodes.failure)
            }
            arguments.append(scratch.appendingPathComponent("tsconfig.json").path)
        }
        let output = try runTsc(tsc, arguments: arguments)
        return TypeCheck(problems: located(output, relativeTo: FileManager.default.currentDirectoryPath))
    }

    /// Runs `tsc` and returns what it printed (it prints problems on standard output).
    private static func runTsc(_ tsc: String, arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tsc)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do {
            try process.run()
        } catch {
            throw CommandFailure("anna: --typecheck cannot run \(tsc): \(error.localizedDescription)", exitCode: ExitCodes.failure)
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        // 0: no problem; 1 and 2: problems printed (with or without output). Anything else failed.
        guard [0, 1, 2].contains(process.terminationStatus) else {
            throw CommandFailure(
                "anna: \(tsc) failed (exit \(process.terminationStatus)): \(text.prefix(400))", exitCode: ExitCodes.failure)
        }
        if process.terminationStatus != 0, !text.contains("error TS") {
            throw CommandFailure("anna: \(tsc) failed: \(text.prefix(400))", exitCode: ExitCodes.failure)
        }
        return text
    }

    /// `tsc`'s `file(line,col): error TS…: message` lines as `file:line:col: error TS…: message`
    /// with absolute paths; the lines that continue a message stay with it.
    static func located(_ output: String, relativeTo folder: String) -> [String] {
        var problems: [String] = []
        for line in output.split(separator: "\n", omittingEmptySubsequences: true) {
            if let match = line.wholeMatch(of: /(.+)\((\d+),(\d+)\): (.*)/) {
                let file =
                    match.1.hasPrefix("/")
                    ? String(match.1) : URL(fileURLWithPath: folder).appendingPathComponent(String(match.1)).standardizedFileURL.path
                problems.append("\(file):\(match.2):\(match.3): \(match.4)")
            } else if !problems.isEmpty {
                problems[problems.count - 1] += "\n" + line
            } else {
                problems.append(String(line))
            }
        }
        return problems
    }

    private static func removeScratch(_ folder: URL) {
        guard FileManager.default.fileExists(atPath: folder.path) else { return }
        do {
            try FileManager.default.removeItem(at: folder)
        } catch {
            printError("anna: warning: could not remove \(folder.path): \(error.localizedDescription)")
        }
    }
}
