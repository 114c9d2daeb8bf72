import Foundation

/// The demo's command line: `anna-demo [--module PATH]`.
struct DemoOptions {
    /// The analytics module to load.
    var moduleURL = URL(fileURLWithPath: "fixtures/demo/module")

    static let usage = """
        usage: anna-demo [--module PATH]

        Plays a scripted session of a small shop app built from AnnaKit and prints every
        analytics result as one line of JSON.

          --module PATH   the analytics module (default: fixtures/demo/module, relative to
                          the current directory; run from the package root)
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
            case let .missingValue(option): return "\(option) needs a value\n\n\(DemoOptions.usage)"
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
            default:
                throw .unknownArgument(argument)
            }
        }
        let path = options.moduleURL.standardizedFileURL.path
        guard FileManager.default.fileExists(atPath: path) else { throw .moduleNotFound(path: path) }
        return options
    }
}
