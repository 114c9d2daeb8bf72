// JavaScriptCore's constructors return nil only when they cannot allocate, which is fatal here
// as Swift's own allocations are: their results are unwrapped with `!`.
// swift-format-ignore-file: NeverForceUnwrap

internal import CJavaScriptCore

/// Runs `body` with a temporary `JSStringRef` holding `string`, released afterwards.
/// Built from UTF-16 code units, so embedded NUL characters survive.
func withJSString<Result>(_ string: String, _ body: (JSStringRef) throws -> Result) rethrows -> Result {
    let jsString = makeJSString(string)
    defer { JSStringRelease(jsString) }
    return try body(jsString)
}

/// A new `JSStringRef` (+1) holding `string`; the caller releases it.
func makeJSString(_ string: String) -> JSStringRef {
    if string.utf8.allSatisfy({ $0 != 0 }) {
        return JSStringCreateWithUTF8CString(string)!
    }
    let units = Array(string.utf16)
    return units.withUnsafeBufferPointer { JSStringCreateWithCharacters($0.baseAddress, $0.count)! }
}

extension String {
    /// Copies the characters of a `JSStringRef` (UTF-16) into a Swift string.
    init(jsString: JSStringRef) {
        let length = JSStringGetLength(jsString)
        guard length > 0, let characters = JSStringGetCharactersPtr(jsString) else {
            self = ""
            return
        }
        self = String(decoding: UnsafeBufferPointer(start: characters, count: length), as: UTF16.self)
    }
}

/// `object[name]` without the exception (a getter that throws reads as `nil`).
func propertyValue(_ context: JSContextRef, _ object: JSObjectRef, _ name: String) -> JSValueRef? {
    withJSString(name) { JSObjectGetProperty(context, object, $0, nil) }
}
