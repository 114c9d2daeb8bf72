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
    if let arguments {
        for position in 0..<count {
            values.append(JavaScriptValue(arguments[position] ?? JSValueMakeUndefined(ctx), in: context))
        }
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
