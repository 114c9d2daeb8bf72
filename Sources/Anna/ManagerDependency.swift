import CoreJS
import Foundation

extension Manager {
    /// What a ``Manager`` is built with besides the module: the reference library's
    /// `Dependency`, plus the execution time limit.
    public struct Dependency: Sendable {
        /// Re-require task files on every load, and retry loading a module that failed.
        public var debug: Bool
        /// The folder of the JavaScript core (named `anna`); default: the bundled one.
        public var coreJSModuleURL: URL
        /// How the module runtime reads files (inject ``InMemoryFileAccess`` in tests).
        public var fileManager: any FileAccess
        /// Where `console.log` of tasks and ``Manager/logSnapshot()`` write.
        public var standardOutput: any OutputSink
        /// Where `console.warn` and `console.error` write; `nil` means ``standardOutput``.
        public var standardError: (any OutputSink)?
        /// Seconds one call into JavaScript may run before it is stopped.
        public var executionTimeLimit: Double
        /// Folders besides the module's and the core's that modules may be read from.
        public var additionalAllowedRoots: [URL]
        /// When set, every operation sent to the core is also written to this file in the
        /// event-stream format (opt-in), so `anna run` can replay the session exactly.
        public var recordingURL: URL?

        /// The defaults: not debug, bundled core, files from disk, standard output, 2 s.
        public init(
            debug: Bool = false, coreJSModuleURL: URL = BundledCore.folderURL,
            fileManager: any FileAccess = LocalFileAccess(),
            standardOutput: any OutputSink = FileHandleOutputSink.standardOutput,
            standardError: (any OutputSink)? = nil, executionTimeLimit: Double = 2,
            additionalAllowedRoots: [URL] = [], recordingURL: URL? = nil
        ) {
            self.debug = debug
            self.coreJSModuleURL = coreJSModuleURL
            self.fileManager = fileManager
            self.standardOutput = standardOutput
            self.standardError = standardError
            self.executionTimeLimit = executionTimeLimit
            self.additionalAllowedRoots = additionalAllowedRoots
            self.recordingURL = recordingURL
        }
    }
}
