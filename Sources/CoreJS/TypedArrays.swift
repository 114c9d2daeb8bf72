internal import CJavaScriptCore

extension JavaScriptContext {
    /// A new `Float64Array` holding a copy of `values`: the cheap way to hand many numbers
    /// to a script in one call.
    public func makeFloat64Array(copying values: UnsafeBufferPointer<Double>) throws -> JavaScriptValue {
        let array = try trying("making a Float64Array") {
            JSObjectMakeTypedArray(contextRef, kJSTypedArrayTypeFloat64Array, values.count, $0)
        }
        guard let array else { throw JavaScriptError.typeMismatch("could not make a Float64Array") }
        if values.count > 0, let base = values.baseAddress {
            let bytes = try trying("reaching a Float64Array's storage") { JSObjectGetTypedArrayBytesPtr(contextRef, array, $0) }
            bytes?.copyMemory(from: base, byteCount: values.count * MemoryLayout<Double>.stride)
        }
        return JavaScriptValue(array, in: self)
    }
}
