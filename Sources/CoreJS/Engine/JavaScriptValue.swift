internal import CJavaScriptCore

/// A JavaScript value held from Swift, protected from garbage collection while this wrapper lives.
///
/// Values belong to the context that made them and share its thread confinement.
public final class JavaScriptValue {
    /// The context the value lives in (kept alive by the value).
    public let context: JavaScriptContext
    let ref: JSValueRef

    init(_ ref: JSValueRef, in context: JavaScriptContext) {
        self.context = context
        self.ref = ref
        JSValueProtect(context.contextRef, ref)
        context.protectedValueCount += 1
    }

    deinit {
        JSValueUnprotect(context.contextRef, ref)
        context.protectedValueCount -= 1
    }

    private var contextRef: JSGlobalContextRef { context.contextRef }

    /// Whether the value is `undefined`.
    public var isUndefined: Bool { JSValueIsUndefined(contextRef, ref) }
    /// Whether the value is `null`.
    public var isNull: Bool { JSValueIsNull(contextRef, ref) }
    /// Whether the value is an object (functions and arrays included).
    public var isObject: Bool { JSValueIsObject(contextRef, ref) }
    /// Whether the value is a string.
    public var isString: Bool { JSValueIsString(contextRef, ref) }

    /// Whether the value can be called.
    public var isFunction: Bool {
        guard let object = objectRef else { return false }
        return JSObjectIsFunction(contextRef, object)
    }

    /// Whether the value can be used with `new`.
    public var isConstructor: Bool {
        guard let object = objectRef else { return false }
        return JSObjectIsConstructor(contextRef, object)
    }

    var objectRef: JSObjectRef? {
        guard JSValueIsObject(contextRef, ref) else { return nil }
        return JSValueToObject(contextRef, ref, nil)
    }

    /// The value as JSON-like data, by the rules documented on ``JSONValue``.
    public func toJSON() -> JSONValue {
        context.jsonValue(from: ref)
    }

    /// `String(value)`, as JavaScript would print it.
    public func toString() -> String {
        context.describe(ref)
    }

    /// `String(value)` as UTF-8 bytes (no terminating zero), without making a Swift string:
    /// the fast way to read a large text such as JSON; empty when the value cannot be
    /// converted.
    ///
    /// Transcoded from the engine's UTF-16 units (``UTF16Transcoding``): the same bytes as the
    /// engine's own conversion (``engineUTF8Bytes()``), about four times faster for an ASCII
    /// text such as a batch of results. A lone surrogate becomes U+FFFD, as in ``toString()``,
    /// where the engine's conversion stops and drops the rest.
    public func utf8Bytes() -> [UInt8] {
        guard let string = JSValueToStringCopy(contextRef, ref, nil) else { return [] }
        defer { JSStringRelease(string) }
        let length = JSStringGetLength(string)
        guard length > 0 else { return [] }
        guard let units = JSStringGetCharactersPtr(string) else { return Self.engineUTF8Bytes(of: string) }
        return UTF16Transcoding.utf8(UnsafeBufferPointer(start: units, count: length))
    }

    /// ``utf8Bytes()`` as the engine converts it (`JSStringGetUTF8CString`), written straight
    /// into an array whose capacity is the most the text could take; it ends at a lone
    /// surrogate. What the tests compare with.
    func engineUTF8Bytes() -> [UInt8] {
        guard let string = JSValueToStringCopy(contextRef, ref, nil) else { return [] }
        defer { JSStringRelease(string) }
        return Self.engineUTF8Bytes(of: string)
    }

    private static func engineUTF8Bytes(of string: JSStringRef) -> [UInt8] {
        let capacity = JSStringGetMaximumUTF8CStringSize(string)
        return [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            let written = buffer.withMemoryRebound(to: CChar.self) {
                JSStringGetUTF8CString(string, $0.baseAddress, $0.count)
            }
            initialized = max(written - 1, 0)  // without the terminating zero
        }
    }

    /// Reads a property (`value[name]`); `undefined` when missing.
    /// - Throws: when the value is not an object or a getter throws.
    public func property(_ name: String) throws -> JavaScriptValue {
        guard let object = objectRef else {
            throw JavaScriptError.typeMismatch("cannot read property '\(name)' of \(toString())")
        }
        let value = try withJSString(name) { key in
            try context.trying("reading property '\(name)'") { JSObjectGetProperty(contextRef, object, key, $0) }
        }
        return JavaScriptValue(value ?? JSValueMakeUndefined(contextRef), in: context)
    }

    /// Writes a property (`value[name] = newValue`).
    public func setProperty(_ name: String, _ newValue: JavaScriptValue) throws {
        guard let object = objectRef else {
            throw JavaScriptError.typeMismatch("cannot set property '\(name)' of \(toString())")
        }
        try withJSString(name) { key in
            try context.trying("setting property '\(name)'") {
                JSObjectSetProperty(contextRef, object, key, newValue.ref, 0, $0)
            }
        }
    }

    /// Writes JSON-like data into a property.
    public func setProperty(_ name: String, _ newValue: JSONValue) throws {
        try setProperty(name, context.makeValue(newValue))
    }

    /// Deletes a property (`delete value[name]`).
    public func deleteProperty(_ name: String) throws {
        guard let object = objectRef else { return }
        _ = try withJSString(name) { key in
            try context.trying("deleting property '\(name)'") { JSObjectDeleteProperty(contextRef, object, key, $0) }
        }
    }

    /// Calls the value as a function.
    ///
    /// - Parameters:
    ///   - arguments: the arguments.
    ///   - this: the receiver; `undefined` when `nil`.
    ///   - operation: what the call does, named in a time-limit error (default: the function's name).
    /// - Throws: ``JavaScriptError`` when the function throws, runs too long, or is not a function.
    @discardableResult
    public func call(
        _ arguments: [JavaScriptValue] = [], this: JavaScriptValue? = nil, operation: String? = nil
    ) throws -> JavaScriptValue {
        guard let function = objectRef, JSObjectIsFunction(contextRef, function) else {
            throw JavaScriptError.typeMismatch("\(operation ?? toString()) is not a function")
        }
        let receiver = this?.objectRef
        let result = try arguments.map { Optional($0.ref) }.withUnsafeBufferPointer { buffer in
            try context.trying(operation ?? "calling \(functionName)") {
                JSObjectCallAsFunction(contextRef, function, receiver, buffer.count, buffer.baseAddress, $0)
            }
        }
        return JavaScriptValue(result ?? JSValueMakeUndefined(contextRef), in: context)
    }

    /// Calls the value as a function with JSON-like arguments.
    @discardableResult
    public func call(
        _ arguments: [JSONValue], this: JavaScriptValue? = nil, operation: String? = nil
    ) throws -> JavaScriptValue {
        try call(arguments.map(context.makeValue), this: this, operation: operation)
    }

    /// Calls the method `name` of this object.
    @discardableResult
    public func invokeMethod(_ name: String, _ arguments: [JavaScriptValue] = []) throws -> JavaScriptValue {
        try property(name).call(arguments, this: self, operation: "calling \(name)()")
    }

    /// Uses the value as a constructor (`new value(...arguments)`).
    public func construct(_ arguments: [JavaScriptValue] = [], operation: String? = nil) throws -> JavaScriptValue {
        guard let constructor = objectRef, JSObjectIsConstructor(contextRef, constructor) else {
            throw JavaScriptError.typeMismatch("\(operation ?? toString()) is not a constructor")
        }
        let result = try arguments.map { Optional($0.ref) }.withUnsafeBufferPointer { buffer in
            try context.trying(operation ?? "constructing \(functionName)") {
                JSObjectCallAsConstructor(contextRef, constructor, buffer.count, buffer.baseAddress, $0)
            }
        }
        return JavaScriptValue(result ?? JSValueMakeUndefined(contextRef), in: context)
    }

    /// Whether `this instanceof constructor`.
    public func isInstance(of constructor: JavaScriptValue) -> Bool {
        guard let constructorObject = constructor.objectRef else { return false }
        return JSValueIsInstanceOfConstructor(contextRef, ref, constructorObject, nil)
    }

    /// Whether two values are the same value (`===`).
    public func isStrictlyEqual(to other: JavaScriptValue) -> Bool {
        JSValueIsStrictEqual(contextRef, ref, other.ref)
    }

    private var functionName: String {
        guard let object = objectRef,
            let name = propertyValue(contextRef, object, "name"),
            JSValueIsString(contextRef, name)
        else { return "a function" }
        let text = context.describe(name)
        return text.isEmpty ? "an anonymous function" : "'\(text)'"
    }
}
