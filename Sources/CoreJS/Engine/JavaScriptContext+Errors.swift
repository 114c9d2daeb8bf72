// JavaScriptCore's constructors return nil only when they cannot allocate, which is fatal here
// as Swift's own allocations are: their results are unwrapped with `!`.
// swift-format-ignore-file: NeverForceUnwrap

internal import CJavaScriptCore

// Errors across the boundary, both ways: `trying` turns a JavaScriptCore exception
// out-parameter into a Swift ``JavaScriptError`` (the one place that does), and
// `errorRef(for:)` turns a Swift error thrown by a native function into a JavaScript `Error`.

extension JavaScriptContext {
    /// Makes an `Error` object with `name`, `message` and extra properties.
    public func makeError(name: String, message: String, properties: [String: JSONValue] = [:]) -> JavaScriptValue {
        JavaScriptValue(makeErrorRef(name: name, message: message, properties: properties), in: self)
    }

    /// The one place that turns a JavaScriptCore exception out-parameter into a Swift error.
    func trying<Result>(
        _ operation: @autoclosure () -> String, _ body: (UnsafeMutablePointer<JSValueRef?>) -> Result
    ) throws -> Result {
        var exception: JSValueRef?
        let result = watchdog.entering { body(&exception) }
        if let stop = watchdog.stop, watchdog.isOutermost {
            let laterStop = watchdog.laterStop
            watchdog.stop = nil
            watchdog.laterStop = nil
            if case .memory = stop { collectGarbage() }
            guard exception != nil else {
                // The call had returned; a promise job it queued (code after `await`, a `then`
                // callback) ran when it ended and was stopped. The call's value stands.
                stoppedPromiseJob = stopError(stop, operation: "a promise job queued by \(operation())")
                return result
            }
            if let laterStop {
                // The call was stopped; the promise jobs queued before it ran as it ended, and
                // one of them was stopped too.
                stoppedPromiseJob = stopError(laterStop, operation: "a promise job queued before \(operation())")
            }
            throw stopError(stop, operation: operation())
        }
        if let exception {
            throw JavaScriptError.exception(makeException(from: exception))
        }
        return result
    }

    func stopError(_ stop: Watchdog.Stop, operation: String) -> JavaScriptError {
        switch stop {
        case .time: .executionTimeLimitExceeded(operation: operation, limitSeconds: executionTimeLimit.inSeconds)
        case let .memory(bytes): .memoryLimitExceeded(operation: operation, limitBytes: memoryLimit ?? 0, heapBytes: bytes)
        }
    }

    /// The stop of a promise job that ran as a call ended, returned or stopped (code after
    /// `await`, a `then` callback), if one was stopped since the last time this was asked;
    /// the promise jobs queued after it were dropped.
    public func takeStoppedPromiseJob() -> JavaScriptError? {
        defer { stoppedPromiseJob = nil }
        return stoppedPromiseJob
    }

    func makeErrorRef(name: String, message: String, properties: [String: JSONValue]) -> JSValueRef {
        let messageRef = makeRef(.string(message))
        var arguments: [JSValueRef?] = [messageRef]
        let error = JSObjectMakeError(contextRef, 1, &arguments, nil)!
        var members = properties
        members["name"] = .string(name)
        for (key, value) in members {
            let valueRef = makeRef(value)
            withJSString(key) { JSObjectSetProperty(contextRef, error, $0, valueRef, 0, nil) }
        }
        return error
    }

    func isError(_ object: JSObjectRef) -> Bool {
        guard let errorConstructor else { return false }
        return JSValueIsInstanceOfConstructor(contextRef, object, errorConstructor, nil)
    }

    /// Describes a thrown value (typically an `Error` a script caught and handed over) the
    /// way a thrown exception is described.
    public func exception(from thrown: JavaScriptValue) -> JavaScriptException {
        makeException(from: thrown.ref)
    }

    private func makeException(from thrown: JSValueRef) -> JavaScriptException {
        guard JSValueIsObject(contextRef, thrown), let object = JSValueToObject(contextRef, thrown, nil) else {
            return JavaScriptException(
                name: "Error", message: describe(thrown), thrownValue: jsonValue(from: thrown))
        }
        func member(_ key: String) -> JSValueRef? {
            let value = propertyValue(contextRef, object, key)
            guard let value, !JSValueIsUndefined(contextRef, value), !JSValueIsNull(contextRef, value) else {
                return nil
            }
            return value
        }
        func integer(_ key: String) -> Int? {
            member(key).flatMap { Int(exactly: JSValueToNumber(contextRef, $0, nil)) }
        }
        let stack = member("stack").map(describe).flatMap { $0.isEmpty ? nil : $0 }
        var thrownValue = jsonValue(from: thrown)
        if case var .object(members) = thrownValue {
            members.removeValue(forKey: "line")
            members.removeValue(forKey: "column")
            members.removeValue(forKey: "sourceURL")
            thrownValue = .object(members)
        }
        var sourceURL = member("sourceURL").map(describe)
        var line = integer("line")
        var column = integer("column")
        if let url = sourceURL, let at = line, let original = originalPlace(sourceURL: url, line: at, column: column) {
            (sourceURL, line, column) = (original.file, original.line, original.column)
        } else if line == 1, let sourceURL, let shift = firstLineShifts[sourceURL], let shifted = column {
            column = max(1, shifted - shift)  // the function header shares a module's first line
        }
        return JavaScriptException(
            name: member("name").map(describe) ?? "Error",
            message: member("message").map(describe) ?? describe(thrown),
            sourceURL: sourceURL,
            line: line,
            column: column,
            stack: stack.map(originalStack),
            thrownValue: thrownValue)
    }

    /// The JavaScript error object a Swift error becomes when thrown out of a native function.
    func errorRef(for error: any Error) -> JSValueRef {
        switch error {
        case let throwable as any JavaScriptThrowable:
            return makeErrorRef(
                name: throwable.javaScriptName, message: throwable.javaScriptMessage,
                properties: throwable.javaScriptProperties)
        case let JavaScriptError.exception(exception):
            // Keep where the original error pointed, not where the native function was called.
            var properties: [String: JSONValue] = [:]
            if let stack = exception.stack { properties["stack"] = .string(stack) }
            if let sourceURL = exception.sourceURL { properties["sourceURL"] = .string(sourceURL) }
            if let line = exception.line { properties["line"] = .number(Double(line)) }
            // A syntax error has no column: leave none rather than the native call's own.
            properties["column"] = exception.column.map { .number(Double($0)) } ?? .undefined
            return makeErrorRef(name: exception.name, message: exception.message, properties: properties)
        default:
            return makeErrorRef(name: "Error", message: String(describing: error), properties: [:])
        }
    }
}
