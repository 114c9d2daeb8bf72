// JavaScriptCore's constructors return nil only when they cannot allocate, which is fatal here
// as Swift's own allocations are: their results are unwrapped with `!`.
// swift-format-ignore-file: NeverForceUnwrap

internal import CJavaScriptCore
import Foundation

/// Runs `body` with a temporary `JSStringRef` holding `string`, released afterwards.
/// Built from UTF-16 code units, so embedded NUL characters survive.
func withJSString<Result>(_ string: String, _ body: (JSStringRef) throws -> Result) rethrows -> Result {
    let jsString = makeJSString(string)
    defer { JSStringRelease(jsString) }
    return try body(jsString)
}

/// A new `JSStringRef` (+1) holding `string`; the caller releases it.
func makeJSString(_ string: String) -> JSStringRef {
    if !containsNUL(string) {
        return JSStringCreateWithUTF8CString(string)!
    }
    let units = Array(string.utf16)
    return units.withUnsafeBufferPointer { JSStringCreateWithCharacters($0.baseAddress, $0.count)! }
}

/// Whether `string` holds a NUL character: `memchr` over its UTF-8 bytes (iterating the
/// `utf8` view took 45 ms for TypeScript's 10.8 MB compiler, 4% of a cold TypeScript run).
func containsNUL(_ string: String) -> Bool {
    let found = string.utf8.withContiguousStorageIfAvailable { bytes in
        guard let start = bytes.baseAddress else { return false }
        return memchr(start, 0, bytes.count) != nil
    }
    return found ?? string.utf8.contains(0)
}

extension String {
    /// Copies the characters of a `JSStringRef` (UTF-16) into a Swift string.
    init(jsString: JSStringRef) {
        let length = JSStringGetLength(jsString)
        guard length > 0, let characters = JSStringGetCharactersPtr(jsString) else {
            self = ""
            return
        }
        self = String(utf16: UnsafeBufferPointer(start: characters, count: length))
    }

    /// A string from UTF-16 code units, a lone surrogate read as U+FFFD (as
    /// `String(decoding:as: UTF16.self)`, whose generic decoding took milliseconds for the
    /// snapshot of a large tree): transcoded to UTF-8 in one loop (``UTF16Transcoding``),
    /// then validated in bulk.
    init(utf16 units: UnsafeBufferPointer<UInt16>) {
        self = String(unsafeUninitializedCapacity: units.count * 3) { UTF16Transcoding.encode(units, into: $0) }
    }
}

/// `object[name]` without the exception (a getter that throws reads as `nil`).
func propertyValue(_ context: JSContextRef, _ object: JSObjectRef, _ name: String) -> JSValueRef? {
    withJSString(name) { JSObjectGetProperty(context, object, $0, nil) }
}
