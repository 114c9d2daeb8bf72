import CoreJS

/// The core's optional methods, looked up once per constructed manager (as the bridge looks
/// up its own functions once): older cores lack some, and the engine then does without.
///
/// Not thread-safe: used by one ``AnalyticsEngine``.
struct CoreServices {
    /// One optional method of the core.
    struct Method {
        /// Its name on the manager, e.g. `coverage`.
        let name: String
        /// The function; `nil` when the core has none; a failure when reading it threw.
        let function: Result<JavaScriptValue?, JavaScriptError>

        init(_ name: String, of manager: JavaScriptValue) {
            self.name = name
            do {
                let value = try manager.property(name)
                function = .success(value.isFunction ? value : nil)
            } catch {
                function = .failure(ModuleBridge.javaScriptError(error))
            }
        }
    }

    /// The manager the methods are called on.
    let manager: JavaScriptValue
    let coverage: Method
    let taskFiles: Method
    let reloadTaskFile: Method
    let runningTask: Method
    let setTaskFileEnabled: Method
    let disabledTaskFiles: Method
    let setDebug: Method

    /// Looks the methods up on `manager`.
    init(manager: JavaScriptValue) {
        self.manager = manager
        coverage = Method("coverage", of: manager)
        taskFiles = Method("taskFiles", of: manager)
        reloadTaskFile = Method("reloadTaskFile", of: manager)
        runningTask = Method("runningTask", of: manager)
        setTaskFileEnabled = Method("setTaskFileEnabled", of: manager)
        disabledTaskFiles = Method("disabledTaskFiles", of: manager)
        setDebug = Method("setDebug", of: manager)
    }

    /// Calls `method` on the manager.
    /// - Throws: ``AnalyticsError/operationFailed(operation:_:)`` naming `operation` when the
    ///   core has no such method (`the module's core has no coverage()`), or when reading or
    ///   calling it failed.
    @discardableResult
    func call(_ method: Method, _ arguments: [JSONValue], describing operation: String) throws -> JavaScriptValue {
        do {
            guard let function = try method.function.get() else {
                throw JavaScriptError.typeMismatch("the module's core has no \(method.name)()")
            }
            return try function.call(arguments, this: manager, operation: operation)
        } catch {
            throw AnalyticsError.operationFailed(operation: operation, ModuleBridge.javaScriptError(error))
        }
    }

    /// `method`'s value, or `nil` when the core has no such method.
    /// - Throws: as ``call(_:_:describing:)`` when reading or calling it failed.
    func callIfPresent(_ method: Method, _ arguments: [JSONValue], describing operation: String) throws -> JavaScriptValue? {
        if case .success(nil) = method.function { return nil }
        return try call(method, arguments, describing: operation)
    }
}
