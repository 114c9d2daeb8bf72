import Foundation

/// The demo's command line: `anna-demo [--module PATH] [--visits N] [--record FILE]`.
struct DemoOptions {
    /// The analytics module to load: by default the one bundled with the demo (a folder
    /// resource named `module`), as an app bundles its own.
    var moduleURL = Bundle.module.url(forResource: "module", withExtension: nil) ?? URL(fileURLWithPath: "fixtures/demo/module")
    /// How many browsing visits follow the scripted one.
    var extraVisits = 0
    /// Where the manager records the event stream, if anywhere.
    var recordingURL: URL?

    static let usage = """
        usage: anna-demo [--module PATH] [--visits N] [--record FILE]

        Plays a scripted session of a small shop app built from AnnaKit and prints every
        analytics result as one line of JSON.

          --module PATH   the analytics module (default: the copy of fixtures/demo/module
                          bundled with the demo as a resource)
          --visits N      after the scripted visit, N more browsing visits (deterministic)
          --record FILE   record every operation sent to the core as an event stream
                          (replay it with `anna run --events FILE --module PATH`)
          -h, --help      show this help
        """

    /// Why the command line was not accepted.
    enum Failure: Error, CustomStringConvertible {
        case helpRequested
        case missingValue(option: String)
        case unknownArgument(String)
        case moduleNotFound(path: String)

        var description: String {
            switch self {
            case .helpRequested: return DemoOptions.usage
            case let .missingValue(option): return "\(option) needs a (valid) value\n\n\(DemoOptions.usage)"
            case let .unknownArgument(argument): return "unknown argument '\(argument)'\n\n\(DemoOptions.usage)"
            case let .moduleNotFound(path):
                return "no analytics module at \(path) (run from the package root, or pass --module PATH)"
            }
        }
    }

    /// Reads the arguments (without the program name) and checks that the module exists.
    static func parse(_ arguments: [String]) throws(Failure) -> DemoOptions {
        var options = DemoOptions()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "-h", "--help":
                throw .helpRequested
            case "--module":
                guard let path = remaining.popFirst() else { throw .missingValue(option: argument) }
                options.moduleURL = URL(fileURLWithPath: path)
            case "--visits":
                guard let text = remaining.popFirst(), let count = Int(text), count >= 0 else {
                    throw .missingValue(option: argument)
                }
                options.extraVisits = count
            case "--record":
                guard let path = remaining.popFirst() else { throw .missingValue(option: argument) }
                options.recordingURL = URL(fileURLWithPath: path)
            default:
                throw .unknownArgument(argument)
            }
        }
        let path = options.moduleURL.standardizedFileURL.path
        guard FileManager.default.fileExists(atPath: path) else { throw .moduleNotFound(path: path) }
        return options
    }
}
