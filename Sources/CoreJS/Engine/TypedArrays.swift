internal import CJavaScriptCore

extension JavaScriptContext {
    /// A new `Float64Array` of `length` zeros: a buffer to hand many numbers to a script in
    /// one call (fill it with ``JavaScriptValue/overwriteFloat64Array(from:)``).
    public func makeFloat64Array(length: Int) throws -> JavaScriptValue {
        let array = try trying("making a Float64Array") {
            JSObjectMakeTypedArray(contextRef, kJSTypedArrayTypeFloat64Array, length, $0)
        }
        guard let array else { throw JavaScriptError.typeMismatch("could not make a Float64Array") }
        return JavaScriptValue(array, in: self)
    }
}

extension JavaScriptValue {
    /// Copies `values` to the start of this `Float64Array` (the rest is left as it is), so
    /// one array can carry batch after batch.
    /// - Throws: ``JavaScriptError/typeMismatch(_:)`` when the value is not a `Float64Array`
    ///   at least as long as `values`.
    public func overwriteFloat64Array(from values: UnsafeBufferPointer<Double>) throws {
        let contextRef = context.contextRef
        guard let object = objectRef,
            try context.trying("reading a typed array's type", { JSValueGetTypedArrayType(contextRef, ref, $0) })
                == kJSTypedArrayTypeFloat64Array
        else { throw JavaScriptError.typeMismatch("not a Float64Array") }
        let length = try context.trying("reading a typed array's length") { JSObjectGetTypedArrayLength(contextRef, object, $0) }
        guard length >= values.count else {
            throw JavaScriptError.typeMismatch("a Float64Array of \(length) cannot take \(values.count) numbers")
        }
        guard values.count > 0, let base = values.baseAddress else { return }
        let bytes = try context.trying("reaching a Float64Array's storage") { JSObjectGetTypedArrayBytesPtr(contextRef, object, $0) }
        guard let bytes else { throw JavaScriptError.typeMismatch("a Float64Array without storage") }
        bytes.copyMemory(from: base, byteCount: values.count * MemoryLayout<Double>.stride)
    }
}
