import CoreJS
import Foundation

extension AnalyticsEngine {
    /// What to load and how: the module, and the ``RuntimeConfiguration`` it runs with.
    @dynamicMemberLookup
    public struct Configuration: Sendable {
        /// The analytics module: a folder with `index.js`, or the file itself.
        public var moduleURL: URL
        /// How the module's runtime is made.
        public var runtime: RuntimeConfiguration
        /// Whether the engine records the realm before the module loads, so that
        /// ``AnalyticsEngine/reset()`` can put it back (replaying many sessions on one engine);
        /// an engine that is never reset does not pay for it.
        public var resettable = false

        /// Creates a configuration for the module at `moduleURL`.
        public init(moduleURL: URL, runtime: RuntimeConfiguration) {
            self.moduleURL = moduleURL
            self.runtime = runtime
        }

        /// Creates a configuration with the defaults: bundled core, 2 s limit, files from disk,
        /// console to standard output.
        public init(
            moduleURL: URL, debug: Bool = false, coreURL: URL = BundledCore.folderURL,
            additionalAllowedRoots: [URL] = [], executionTimeLimit: Duration = RuntimeConfiguration.defaultExecutionTimeLimit,
            fileAccess: any FileAccess = LocalFileAccess(), console: Console = .standard
        ) {
            self.init(
                moduleURL: moduleURL,
                runtime: RuntimeConfiguration(
                    debug: debug, coreURL: coreURL, additionalAllowedRoots: additionalAllowedRoots,
                    executionTimeLimit: executionTimeLimit, fileAccess: fileAccess, console: console))
        }

        /// The settings of ``runtime`` by their own names (`configuration.debug`,
        /// `configuration.executionTimeLimit`, …).
        public subscript<Value>(dynamicMember keyPath: WritableKeyPath<RuntimeConfiguration, Value>) -> Value {
            get { runtime[keyPath: keyPath] }
            set { runtime[keyPath: keyPath] = newValue }
        }
    }
}
