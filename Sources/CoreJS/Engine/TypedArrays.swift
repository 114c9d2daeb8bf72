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
        try withFloat64Array { numbers in
            guard numbers.count >= values.count else {
                throw JavaScriptError.typeMismatch("a Float64Array of \(numbers.count) cannot take \(values.count) numbers")
            }
            guard values.count > 0, let base = values.baseAddress, let target = numbers.baseAddress else { return }
            target.update(from: base, count: values.count)
        }
    }

    /// Runs `body` with the numbers of this `Float64Array`, in place: valid only during the
    /// call, and only while no script runs.
    /// - Throws: ``JavaScriptError/typeMismatch(_:)`` when the value is not a `Float64Array`,
    ///   and what `body` throws.
    public func withFloat64Array<Result>(_ body: (UnsafeMutableBufferPointer<Double>) throws -> Result) throws -> Result {
        let contextRef = context.contextRef
        guard let object = objectRef,
            try context.trying("reading a typed array's type", { JSValueGetTypedArrayType(contextRef, ref, $0) })
                == kJSTypedArrayTypeFloat64Array
        else { throw JavaScriptError.typeMismatch("not a Float64Array") }
        let length = try context.trying("reading a typed array's length") { JSObjectGetTypedArrayLength(contextRef, object, $0) }
        guard length > 0 else { return try body(UnsafeMutableBufferPointer(start: nil, count: 0)) }
        // The engine hands out the start of the whole buffer: a view (`subarray`) starts further on.
        let offset = try context.trying("reading a typed array's offset") { JSObjectGetTypedArrayByteOffset(contextRef, object, $0) }
        let bytes = try context.trying("reaching a Float64Array's storage") { JSObjectGetTypedArrayBytesPtr(contextRef, object, $0) }
        guard let bytes else { throw JavaScriptError.typeMismatch("a Float64Array without storage") }
        return try body(UnsafeMutableBufferPointer(start: (bytes + offset).assumingMemoryBound(to: Double.self), count: length))
    }
}
