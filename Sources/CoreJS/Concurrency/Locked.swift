// The lock the package's types keep their state under. ThreadSanitizer cannot see
// `Synchronization.Mutex` locking (on Linux a futex, taken inside the uninstrumented
// standard library), so every access under it looks like a race. `make tsan` builds with
// `-DANNA_TSAN`, which swaps in a pthread mutex, whose calls TSan intercepts; every other
// build uses `Mutex` itself.

#if ANNA_TSAN
    #if canImport(Glibc)
        import Glibc
    #else
        import Darwin
    #endif

    /// A value guarded by a pthread mutex: the ThreadSanitizer build's stand-in for
    /// `Synchronization.Mutex`, with the same `init(_:)` and `withLock(_:)`.
    package struct Locked<Value: ~Copyable>: ~Copyable, @unchecked Sendable {
        @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
        @usableFromInline let value: UnsafeMutablePointer<Value>

        /// A lock guarding `initialValue`.
        package init(_ initialValue: consuming sending Value) {
            mutex = .allocate(capacity: 1)
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
            value = .allocate(capacity: 1)
            value.initialize(to: initialValue)
        }

        deinit {
            value.deinitialize(count: 1)
            value.deallocate()
            pthread_mutex_destroy(mutex)
            mutex.deallocate()
        }

        /// Runs `body` with the value while holding the lock.
        @inlinable
        package borrowing func withLock<Result: ~Copyable, E: Error>(
            _ body: (inout sending Value) throws(E) -> sending Result
        ) throws(E) -> sending Result {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }
#else
    import Synchronization

    /// A value guarded by a lock: `Synchronization.Mutex` (ThreadSanitizer builds swap in a
    /// pthread mutex with the same API).
    package typealias Locked<Value: ~Copyable> = Mutex<Value>
#endif
