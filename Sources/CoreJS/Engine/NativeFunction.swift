internal import CJavaScriptCore

/// The Swift side of a function made by ``JavaScriptContext/makeFunction(name:_:)``: owned by
/// the JavaScript object (retained when made, released by the class finalizer).
final class NativeFunction {
    weak var context: JavaScriptContext?
    let body: (JavaScriptValue, [JavaScriptValue]) throws -> JavaScriptValue

    init(context: JavaScriptContext, body: @escaping (JavaScriptValue, [JavaScriptValue]) throws -> JavaScriptValue) {
        self.context = context
        self.body = body
    }
}

let nativeFunctionCall: JSObjectCallAsFunctionCallback = { ctx, function, thisObject, count, arguments, exception in
    guard let function, let info = JSObjectGetPrivate(function) else { return JSValueMakeUndefined(ctx) }
    let native = Unmanaged<NativeFunction>.fromOpaque(info).takeUnretainedValue()
    guard let context = native.context else { return JSValueMakeUndefined(ctx) }
    let this = JavaScriptValue(thisObject ?? JSValueMakeUndefined(ctx), in: context)
    var values: [JavaScriptValue] = []
    values.reserveCapacity(count)
    for position in 0..<count {
        values.append(JavaScriptValue(arguments![position]!, in: context))
    }
    do {
        return try native.body(this, values).ref
    } catch {
        exception?.pointee = context.errorRef(for: error)
        return JSValueMakeUndefined(ctx)
    }
}

let nativeFunctionFinalize: JSObjectFinalizeCallback = { object in
    guard let object, let info = JSObjectGetPrivate(object) else { return }
    Unmanaged<NativeFunction>.fromOpaque(info).release()
}

extension JavaScriptContext {
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
            if let column = exception.column { properties["column"] = .number(Double(column)) }
            return makeErrorRef(name: exception.name, message: exception.message, properties: properties)
        default:
            return makeErrorRef(name: "Error", message: String(describing: error), properties: [:])
        }
    }
}
