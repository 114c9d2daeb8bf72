internal import CJavaScriptCore

extension JavaScriptContext {
    /// A new `Float64Array` holding a copy of `values` (then zeros up to `length`, when it is
    /// longer): the cheap way to hand many numbers to a script in one call.
    public func makeFloat64Array(copying values: UnsafeBufferPointer<Double>, length: Int? = nil) throws -> JavaScriptValue {
        let array = try trying("making a Float64Array") {
            JSObjectMakeTypedArray(contextRef, kJSTypedArrayTypeFloat64Array, max(values.count, length ?? 0), $0)
        }
        guard let array else { throw JavaScriptError.typeMismatch("could not make a Float64Array") }
        if values.count > 0, let base = values.baseAddress {
            let bytes = try trying("reaching a Float64Array's storage") { JSObjectGetTypedArrayBytesPtr(contextRef, array, $0) }
            bytes?.copyMemory(from: base, byteCount: values.count * MemoryLayout<Double>.stride)
        }
        return JavaScriptValue(array, in: self)
    }
}

extension JavaScriptValue {
    /// Copies `values` to the start of this `Float64Array`, which is kept for the next
    /// batch: no new array (and storage to zero) per batch.
    /// - Returns: `false`, copying nothing, when the value is not a `Float64Array` or is
    ///   shorter than `values`.
    public func overwriteFloat64Array(from values: UnsafeBufferPointer<Double>) throws -> Bool {
        guard let object = objectRef else { return false }
        let contextRef = context.contextRef
        let type = try context.trying("reading a typed array's type") { JSValueGetTypedArrayType(contextRef, ref, $0) }
        guard type == kJSTypedArrayTypeFloat64Array else { return false }
        let length = try context.trying("reading a typed array's length") { JSObjectGetTypedArrayLength(contextRef, object, $0) }
        guard length >= values.count else { return false }
        if values.count > 0, let base = values.baseAddress {
            let bytes = try context.trying("reaching a Float64Array's storage") { JSObjectGetTypedArrayBytesPtr(contextRef, object, $0) }
            guard let bytes else { return false }
            bytes.copyMemory(from: base, byteCount: values.count * MemoryLayout<Double>.stride)
        }
        return true
    }
}
