import CoreJS

// The core's optional services for authors: coverage, the task running when the time limit
// hit, and the task files to watch. Older cores lack them; the engine then does without.
extension AnalyticsEngine {
    /// Which tasks ran how often, which task files loaded, which namespaces had none.
    /// - Throws: ``AnalyticsError/operationFailed(operation:_:)`` when the module's core
    ///   has no `coverage()` (cores older than the bundled one).
    public func coverage() throws -> Coverage {
        let operation = "reading the coverage"
        guard try manager.property("coverage").isFunction else {
            throw AnalyticsError.operationFailed(operation: operation, .typeMismatch("the module's core has no coverage()"))
        }
        return Coverage(core: try call("coverage", [], describing: operation).toJSON())
    }

    /// Reloads the task files that changed since they were last seen (see
    /// ``RuntimeConfiguration/watchTasks``); a file that fails to reload is reported.
    func reloadChangedTaskFiles(onError: (AnalyticsError) -> Void) {
        guard taskFileWatch.isDue(), let files = taskFiles(onError: onError) else { return }
        for file in taskFileWatch.changed(among: files) {
            do {
                try call("reloadTaskFile", [.string(file)], describing: "reloading the changed task file \(file)")
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
        do {
            guard try manager.property("taskFiles").isFunction else { return nil }
            return (try call("taskFiles", [], describing: "listing the task files").toJSON().arrayValue ?? []).compactMap(\.stringValue)
        } catch {
            onError(error as? AnalyticsError ?? .operationFailed(operation: "listing the task files", ModuleBridge.javaScriptError(error)))
            return nil
        }
    }

    /// `task 'p' (file:line:column) on '/path' (event)` of the task the core is running, when it says.
    func runningTask() -> String? {
        // Only a better name for an error already being reported: when the core cannot say
        // (an older core, none running, or the call fails), the message names the operation.
        let running: JSONValue
        do {
            let method = try manager.property("runningTask")
            guard method.isFunction else { return nil }
            running = try method.call([JSONValue](), this: manager).toJSON()
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
