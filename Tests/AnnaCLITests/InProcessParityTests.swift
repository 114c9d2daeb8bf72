import AnnaTestSupport
import Foundation
import Testing

/// The built binary and the in-process runner (``AnnaInProcess``), given the same arguments,
/// write the same bytes and end with the same status: a ``CommandFailure`` becomes the
/// process's exit code, the argument parser's own messages go where they went.
@Suite("anna in-process and as a process: the same output and exit status", .timeLimit(.minutes(2)))
struct InProcessParityTests {
    /// One way to end, with the status it gives.
    enum Ending: String, CaseIterable, CustomTestStringConvertible {
        case success, strictCoreError, badArguments, malformedLine, missingModule, unwritableConsole, version

        var status: Int32 {
            switch self {
            case .success, .version: 0
            case .strictCoreError: 1
            case .badArguments: 64
            case .malformedLine: 65
            case .missingModule: 66
            case .unwritableConsole: 73
            }
        }

        var testDescription: String { "\(rawValue) (\(status))" }

        /// The arguments, in the shop `workspace`.
        func arguments(in workspace: Workspace) throws -> [String] {
            let module = ["--module", workspace.file("module")]
            let session = workspace.file("session.ndjson")
            switch self {
            case .success: return ["run", "--events", session] + module
            case .strictCoreError:
                try workspace.writeSession("explode.ndjson", appending: #"{"op":"event","id":3,"name":"explode","time":1007}"# + "\n")
                return ["run", "--events", workspace.file("explode.ndjson"), "--strict"] + module
            case .badArguments: return ["run", "--events", session]
            case .malformedLine:
                try workspace.writeSession("bad.ndjson", appending: #"{"op":"teleport","id":3}"# + "\n")
                return ["run", "--events", workspace.file("bad.ndjson")] + module
            case .missingModule: return ["run", "--events", session, "--module", workspace.file("no-such-module")]
            case .unwritableConsole: return ["run", "--events", session, "--console", workspace.file("no-such-folder/console.txt")] + module
            case .version: return ["--version"]
            }
        }
    }

    @Test("the same bytes on standard output and error, the same status", arguments: Ending.allCases)
    func sameAsProcess(ending: Ending) async throws {
        let workspace = try Workspace.shop()
        let arguments = try ending.arguments(in: workspace)
        let process = try await AnnaProcess.run(arguments)
        let inProcess = try await AnnaInProcess.run(arguments)
        #expect(process.status == ending.status)
        #expect(inProcess.status == process.status)
        #expect(inProcess.stdout == process.stdout)
        #expect(inProcess.stderr == process.stderr)
        #expect(!(process.stdout + process.stderr).isEmpty)
    }
}
