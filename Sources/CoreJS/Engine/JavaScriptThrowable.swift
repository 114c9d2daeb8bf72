/// A Swift error that knows how to present itself when thrown into JavaScript by a native function.
///
/// Errors that do not adopt it reach JavaScript as an `Error` whose message is their description.
public protocol JavaScriptThrowable: Error {
    /// The `name` of the JavaScript error (`Error`, `TypeError`, …).
    var javaScriptName: String { get }
    /// The `message` of the JavaScript error.
    var javaScriptMessage: String { get }
    /// Extra properties set on the error object, e.g. `code`.
    var javaScriptProperties: [String: JSONValue] { get }
}

extension JavaScriptException {
    /// The exception `throwable` would be once thrown into JavaScript and caught again.
    public init(_ throwable: any JavaScriptThrowable) {
        self.init(
            name: throwable.javaScriptName, message: throwable.javaScriptMessage,
            thrownValue: .object(.init(uniqueKeysWithValues: throwable.javaScriptProperties.sorted { $0.key < $1.key })))
    }
}
