import CoreJS

// The core's optional services (``CoreServices``, looked up once per manager): coverage, the
// task running when the time limit hit, the task files to watch, and what an inspector
// switches while the engine runs (task files on and off, debug mode, a reload of every task
// file). Older cores lack some; the engine then does without, or says the core cannot.
extension AnalyticsEngine {
    /// Which tasks ran how often, which task files loaded, which namespaces had none.
    /// - Throws: ``AnalyticsError/operationFailed(operation:_:)`` when the module's core
    ///   has no `coverage()` (cores older than the bundled one).
    public func coverage() throws -> Coverage {
        Coverage(core: try core.call(core.coverage, [], describing: "reading the coverage").toJSON())
    }

    /// Switches the tasks of one task file off (events no longer reach them; a reload keeps
    /// them off) or back on (they go after every other task, as a reloaded file's do).
    /// - Parameters:
    ///   - file: The task file's absolute path, as ``Coverage/File/file`` names it.
    ///   - enabled: `false` switches its tasks off, `true` back on.
    /// - Returns: How many loaded tasks the file has (0 for a file that is not loaded).
    /// - Throws: ``AnalyticsError/operationFailed(operation:_:)`` when the core cannot.
    @discardableResult
    public func setTaskFile(_ file: String, enabled: Bool) throws -> Int {
        let operation = "\(enabled ? "enabling" : "disabling") the task file \(file)"
        return Int(try core.call(core.setTaskFileEnabled, [.string(file), .bool(enabled)], describing: operation).toJSON().numberValue ?? 0)
    }

    /// The task files switched off by ``setTaskFile(_:enabled:)``.
    public func disabledTaskFiles() throws -> [String] {
        let files = try core.call(core.disabledTaskFiles, [], describing: "listing the disabled task files")
        return (files.toJSON().arrayValue ?? []).compactMap(\.stringValue)
    }

    /// Turns the core's debug mode (task files re-required on every load) on or off.
    public func setDebug(_ debug: Bool) throws {
        try core.call(core.setDebug, [.bool(debug)], describing: "turning debug mode \(debug ? "on" : "off")")
    }

    /// Runs every task file the core tried again now (their tasks keep their counts); a file
    /// that fails goes to `onError` and the others are still reloaded.
    /// - Returns: The files tried.
    /// - Throws: ``AnalyticsError/operationFailed(operation:_:)`` when the core cannot list them.
    @discardableResult
    public func reloadTaskFiles(onError: (any Error) -> Void) throws -> [String] {
        let listed = try core.call(core.taskFiles, [], describing: "listing the task files")
        let files = (listed.toJSON().arrayValue ?? []).compactMap(\.stringValue)
        for file in files {
            do {
                try core.call(core.reloadTaskFile, [.string(file)], describing: "reloading the task file \(file)")
            } catch {
                onError(error)
            }
        }
        return files
    }

    /// The bytes the JavaScript heap holds, or `nil` where the library cannot tell (it walks
    /// the heap: read it now and then).
    public var heapBytes: Int? { runtime.context.heapBytes }

    /// Reloads the task files that changed since they were last seen (see
    /// ``RuntimeConfiguration/watchTasks``); a file that fails to reload is reported.
    func reloadChangedTaskFiles(onError: (AnalyticsError) -> Void) {
        guard taskFileWatch.isDue(), let files = taskFiles(onError: onError) else { return }
        for file in taskFileWatch.changed(among: files) {
            do {
                try core.call(core.reloadTaskFile, [.string(file)], describing: "reloading the changed task file \(file)")
            } catch {
                onError(error as? AnalyticsError ?? .operationFailed(operation: "reloading \(file)", ModuleBridge.javaScriptError(error)))
            }
        }
    }

    /// Remembers the task files loaded by the last batch as they are now, so that a change
    /// made before the next look counts.
    func noteNewTaskFiles(onError: (AnalyticsError) -> Void) {
        guard let files = taskFiles(onError: onError) else { return }
        taskFileWatch.note(files)
    }

    /// The task files the core tried, or `nil` (an older core has none; a failure is reported).
    private func taskFiles(onError: (AnalyticsError) -> Void) -> [String]? {
        let operation = "listing the task files"
        do {
            guard let files = try core.callIfPresent(core.taskFiles, [], describing: operation) else { return nil }
            return (files.toJSON().arrayValue ?? []).compactMap(\.stringValue)
        } catch {
            onError(error as? AnalyticsError ?? .operationFailed(operation: operation, ModuleBridge.javaScriptError(error)))
            return nil
        }
    }

    /// `task 'p' (file:line:column) on '/path' (event)` of the task the core is running, when it says.
    func runningTask() -> String? {
        // Only a better name for an error already being reported: when the core cannot say
        // (an older core, none running, or the call fails), the message names the operation.
        guard case let .success(method?) = core.runningTask.function else { return nil }
        let running: JSONValue
        do {
            running = try method.call([JSONValue](), this: core.manager).toJSON()
        } catch {
            return nil
        }
        guard running["task"]?.stringValue != nil else {
            // No task runs: the core may be loading a task file (its top-level code).
            return running["file"]?.stringValue.map { "loading the task file \($0)" }
        }
        return Self.describeTask(running)
    }

    /// `task 'p' (file:line:column) on '/path' (event)` from the core's `runningTask()` fields.
    static func describeTask(_ running: JSONValue) -> String? {
        guard let task = running["task"]?.stringValue else { return nil }
        var text = "task '\(task)'" + (TaskLocation(fields: running).map { " (\($0))" } ?? "")
        if let path = running["path"]?.stringValue, let event = running["event"]?.stringValue {
            text += " on \(TaskLocation.describeNode(path)) (\(event))"
        }
        return text
    }
}
