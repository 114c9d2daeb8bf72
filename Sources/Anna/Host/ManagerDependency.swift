import CoreJS
import Foundation
import Logging

extension Manager {
    /// What a ``Manager`` is built with besides the module: the ``RuntimeConfiguration`` its
    /// engine runs with and an optional recording. The runtime's settings read and write
    /// under their own names (`debug`, `executionTimeLimit`, …) and the reference library's
    /// (`coreJSModuleURL`, `standardOutput`, `standardError`).
    @dynamicMemberLookup
    public struct Dependency: Sendable {
        /// How the module's runtime is made (passed to the engine unchanged).
        public var runtime: RuntimeConfiguration
        /// When set, every operation sent to the core is also written to this file in the
        /// event-stream format (opt-in), so `anna run` can replay the session exactly. It is
        /// written as it goes (each chunk as the script queue takes it) and, at a normal
        /// process exit, what was sent before is still written (see ``Manager``).
        public var recordingURL: URL?
        /// Where errors go that no one handles (a delegate without `didCatch`, or no delegate
        /// and no ``Manager/errors()`` stream), and warnings about the delegate. By default
        /// swift-log's `Logger(label: "anna")`; bootstrap `LoggingSystem` to route or silence it.
        public var logger: Logger
        /// In debug mode, how long events may wait for their analyzer's parent before they are
        /// reported (``AnalyticsError/eventsWaiting(owner:chain:events:)``), once per analyzer.
        public var waitingEventsReportDelay: Duration = .seconds(3)
        /// When set, the keys it names are taken out of every result before any listener sees
        /// it, and out of the recording and the operations the inspector is shown.
        public var redaction: Redaction?
        /// When set, every result is also appended here (on the delegate queue, before the
        /// delegate sees it), e.g. a durable `Outbox` from the `AnnaOutbox` library.
        public var outbox: (any ResultSink)?
        /// When set, watches the manager for a debugging tool (e.g. the `AnnaInspector`
        /// library's page); `nil` costs nothing.
        public var inspector: (any ManagerInspector)?

        /// The one initialiser: every setting has its default (not debug, the bundled core, files
        /// from disk, standard output, a 2 s time limit, no recording, the `anna` logger). Set
        /// the rest (``runtime`` as a whole, ``outbox``, ``inspector``, …) as properties.
        public init(
            debug: Bool = false, coreJSModuleURL: URL = BundledCore.folderURL,
            fileAccess: any FileAccess = LocalFileAccess(),
            standardOutput: any OutputSink = FileHandleOutputSink.standardOutput,
            standardError: (any OutputSink)? = nil, executionTimeLimit: Duration = RuntimeConfiguration.defaultExecutionTimeLimit,
            additionalAllowedRoots: [URL] = [], recordingURL: URL? = nil, logger: Logger = Logger(label: "anna")
        ) {
            runtime = RuntimeConfiguration(
                debug: debug, coreURL: coreJSModuleURL, additionalAllowedRoots: additionalAllowedRoots,
                executionTimeLimit: executionTimeLimit, fileAccess: fileAccess,
                console: Console(output: standardOutput, errorOutput: standardError))
            self.recordingURL = recordingURL
            self.logger = logger
        }

        /// The folder of the JavaScript core (named `anna`); default: the bundled one.
        public var coreJSModuleURL: URL {
            get { runtime.coreURL }
            set { runtime.coreURL = newValue }
        }
        /// ``RuntimeConfiguration/fileAccess`` under its earlier name.
        @available(*, deprecated, renamed: "fileAccess")
        public var fileManager: any FileAccess {
            get { runtime.fileAccess }
            set { runtime.fileAccess = newValue }
        }
        /// Where `console.log` of tasks and ``Manager/logSnapshot()`` write.
        public var standardOutput: any OutputSink {
            get { runtime.console.output }
            set { runtime.console.output = newValue }
        }
        /// Where `console.warn` and `console.error` write (``standardOutput`` unless set).
        public var standardError: (any OutputSink)? {
            get { runtime.console.separateErrorOutput }
            set { runtime.console.separateErrorOutput = newValue }
        }

        /// The settings of ``runtime`` by their own names (`debug`, `fileAccess`,
        /// `executionTimeLimit`, `additionalAllowedRoots`, …).
        public subscript<Value>(dynamicMember keyPath: WritableKeyPath<RuntimeConfiguration, Value>) -> Value {
            get { runtime[keyPath: keyPath] }
            set { runtime[keyPath: keyPath] = newValue }
        }
    }
}
