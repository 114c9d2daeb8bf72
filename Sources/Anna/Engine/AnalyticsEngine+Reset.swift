import CoreJS
import Foundation

// Reusing an engine: a fresh engine costs a new JavaScript context, the runtime, the bridge,
// the core and the module (about 10 to 20 ms); a reset keeps the context and costs a tenth of
// that, with nothing left of what ran before.
extension AnalyticsEngine {
    /// The batch size a new engine starts with (it adapts to the operations' speed).
    static let initialBatchSize = 256

    /// Gives the engine the state of a fresh one made with the same configuration, keeping
    /// its JavaScript context: for tools that replay many sessions one after another.
    ///
    /// Nothing of what ran before is left:
    /// - the global object and the built-ins (every object a global holds, their prototypes
    ///   and the intrinsics behind iterators, generators and typed arrays) are put back as
    ///   they were before the module loaded: what scripts added is deleted, what they
    ///   replaced or removed is restored;
    /// - the module cache is emptied, so the module, its core, its task files and every file
    ///   they require run again (task files get fresh module-level variables);
    /// - the bridge is installed anew (its string tables, metas and pending results go with
    ///   the old one), and the manager is constructed anew (its node tree, kept events,
    ///   coverage counts and pending async tasks go with the old one);
    /// - ``time``, the batch size and the task-file watch start over.
    ///
    /// Promise jobs of the old manager that are still pending can no longer reach results:
    /// the old bridge is no longer read.
    ///
    /// The engine must be made with ``Configuration/resettable`` set:
    ///
    /// ```swift
    /// for session in sessions {
    ///     try engine.reset()
    ///     replay(session, on: engine)
    /// }
    /// ```
    /// - Throws: ``AnalyticsError/operationFailed(operation:_:)`` when the engine is not
    ///   resettable, when a script left a change
    ///   that cannot be undone (a frozen built-in, a property made non-configurable) or the
    ///   realm cannot be restored, and ``AnalyticsError/moduleLoadFailed(module:_:)`` when
    ///   the module fails to load again. After a throw the engine is unusable: make a new one.
    public func reset() throws {
        let operation = "resetting the engine"
        do {
            let restore = try resetPoint.get()
            let failed = (try restore.call(operation: operation).toJSON().arrayValue ?? []).compactMap(\.stringValue)
            guard failed.isEmpty else {
                let listed = failed.prefix(3).joined(separator: ", ") + (failed.count > 3 ? " and \(failed.count - 3) more" : "")
                throw AnalyticsError.operationFailed(
                    operation: operation,
                    .typeMismatch("a script made changes that cannot be undone (\(listed)); a fresh engine is needed"))
            }
            bridge = try ModuleBridge(context: runtime.context, debug: configuration.debug, reusing: bridge.scripts)
        } catch let error as JavaScriptError {
            throw AnalyticsError.operationFailed(operation: operation, error)
        }
        // From now on the module and its task files run again on the functions compiled for
        // them before (the JIT's work kept; see CommonJSRuntime.reusesCompiledModules).
        runtime.reusesCompiledModules = true
        manager = try Self.constructManager(at: configuration.moduleURL.standardizedFileURL.path, in: runtime, bridge: bridge)
        encoder = OperationEncoder()
        encoderTable = StringTableMirror()
        batchSize = Self.initialBatchSize
        time = nil
        taskFileWatch = TaskFileWatch()
    }

    /// Loads the module at `modulePath` (from the module cache when it holds it) and
    /// constructs its manager with the bridge's arguments, attached to `bridge`.
    /// - Throws: ``AnalyticsError/moduleLoadFailed(module:_:)`` or
    ///   ``AnalyticsError/moduleNotConstructor(module:found:)``.
    static func constructManager(at modulePath: String, in runtime: CommonJSRuntime, bridge: ModuleBridge) throws -> JavaScriptValue {
        let constructor = try ModuleEntry.loadConstructor(at: modulePath, in: runtime)
        do {
            let operation = "constructing the manager of \(modulePath)"
            let manager =
                constructor.isConstructor
                ? try constructor.construct(bridge.managerArguments, operation: operation)
                : try constructor.call(bridge.managerArguments, operation: operation)
            try bridge.attach(manager)
            return manager
        } catch let error as JavaScriptError {
            throw AnalyticsError.moduleLoadFailed(module: modulePath, error)
        }
    }

    /// Records the realm as it is now (before any module code ran) and returns the function
    /// that puts it back; the failure is kept for ``reset()`` to report, so an engine that is
    /// never reset does not fail for it.
    ///
    /// When the module's `require('anna')` finds the core of `configuration`, the core is
    /// loaded first and recorded too: a reset keeps it (its code stays compiled and warm) and
    /// puts back what scripts changed in its exports.
    static func takeResetPoint(in runtime: CommonJSRuntime, configuration: Configuration) -> Result<JavaScriptValue, JavaScriptError> {
        let operation = "recording the realm for resets"
        let context = runtime.context
        do {
            let core = configuration.coreURL.standardizedFileURL.path + "/"
            let moduleFolder = ModuleEntry.folder(of: configuration.moduleURL.standardizedFileURL.path, fileAccess: configuration.fileAccess)
            var keeps: JSONValue = .null
            if let resolved = try? runtime.resolve("anna", from: moduleFolder), resolved.hasPrefix(core) {
                // The module's core is the configured one (a module that finds no core, or
                // another, reloads whole on reset).
                try runtime.require(resolved)
                keeps = .string(core)
            }
            let cache = try context.globalObject.property("require").property("cache")
            // The host's reset script (Bridge/Scripts/engine-reset.js) on the realm walk it shares
            // with the built-ins guard.
            let (builtIns, walk) = try HostScript.walk(in: context)
            let snapshot = try HostScript.engineReset.evaluate(in: context).call([walk, builtIns], operation: operation)
            return .success(try snapshot.call([cache, context.makeValue(keeps)], operation: operation))
        } catch {
            return .failure(ModuleBridge.javaScriptError(error))
        }
    }
}
