internal import CJavaScriptCore

/// Runs `body` with a temporary `JSStringRef` holding `string`, released afterwards.
func withJSString<Result>(_ string: String, _ body: (JSStringRef) throws -> Result) rethrows -> Result {
    let jsString = JSStringCreateWithUTF8CString(string)!
    defer { JSStringRelease(jsString) }
    return try body(jsString)
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
