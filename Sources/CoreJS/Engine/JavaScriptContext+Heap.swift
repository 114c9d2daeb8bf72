extension JavaScriptContext {
    /// The bytes the heap of the context's group holds (its blocks and the memory its
    /// objects own outside them), or `nil` where the library cannot tell. It walks the heap:
    /// read it now and then (an inspector's once a second), not per operation.
    public var heapBytes: Int? {
        let bytes = Watchdog.heapBytes(contextRef)
        return bytes < 0 ? nil : bytes
    }
}
