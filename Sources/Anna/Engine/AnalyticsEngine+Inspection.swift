import CoreJS

// What an inspector switches while the engine runs: task files on and off, debug mode, a
// reload of every task file. These need the bundled core (or one with the same methods).
extension AnalyticsEngine {
    /// Switches the tasks of one task file off (events no longer reach them; a reload keeps
    /// them off) or back on (they go after every other task, as a reloaded file's do).
    /// - Parameter file: The task file's absolute path, as ``Coverage/File/file`` names it.
    /// - Returns: How many loaded tasks the file has (0 for a file that is not loaded).
    /// - Throws: ``AnalyticsError/operationFailed(operation:_:)`` when the core cannot.
    @discardableResult
    public func setTaskFile(_ file: String, enabled: Bool) throws -> Int {
        let operation = "\(enabled ? "enabling" : "disabling") the task file \(file)"
        try requireCoreMethod("setTaskFileEnabled", operation: operation)
        return Int(try call("setTaskFileEnabled", [.string(file), .bool(enabled)], describing: operation).toJSON().numberValue ?? 0)
    }

    /// The task files switched off by ``setTaskFile(_:enabled:)``.
    public func disabledTaskFiles() throws -> [String] {
        let operation = "listing the disabled task files"
        try requireCoreMethod("disabledTaskFiles", operation: operation)
        return (try call("disabledTaskFiles", [], describing: operation).toJSON().arrayValue ?? []).compactMap(\.stringValue)
    }

    /// Turns the core's debug mode (task files re-required on every load) on or off.
    public func setDebug(_ debug: Bool) throws {
        let operation = "turning debug mode \(debug ? "on" : "off")"
        try requireCoreMethod("setDebug", operation: operation)
        try call("setDebug", [.bool(debug)], describing: operation)
    }

    /// Runs every task file the core tried again now (their tasks keep their counts); a file
    /// that fails goes to `onError` and the others are still reloaded.
    /// - Returns: The files tried.
    /// - Throws: ``AnalyticsError/operationFailed(operation:_:)`` when the core cannot list them.
    @discardableResult
    public func reloadTaskFiles(onError: (any Error) -> Void) throws -> [String] {
        let operation = "listing the task files"
        try requireCoreMethod("taskFiles", operation: operation)
        let files = (try call("taskFiles", [], describing: operation).toJSON().arrayValue ?? []).compactMap(\.stringValue)
        for file in files {
            do {
                try call("reloadTaskFile", [.string(file)], describing: "reloading the task file \(file)")
            } catch {
                onError(error)
            }
        }
        return files
    }

    /// The bytes the JavaScript heap holds, or `nil` where the library cannot tell (it walks
    /// the heap: read it now and then).
    public var heapBytes: Int? { runtime.context.heapBytes }

    private func requireCoreMethod(_ name: String, operation: String) throws {
        guard try manager.property(name).isFunction else {
            throw AnalyticsError.operationFailed(operation: operation, .typeMismatch("the module's core has no \(name)()"))
        }
    }
}
