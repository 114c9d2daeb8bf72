import CoreJS
import Foundation

/// What every analyzer offers: the reference library's `Analyzing` methods.
public protocol Analyzing: AnyObject, Sendable {
    /// Enables the analyzer with a standalone name; its node's parent is found through the
    /// responder chain (and focus). Sub-analyzers of an ``AnalyzableObject`` owner are added.
    func enable(naming name: String)
    /// Makes `sub` the child named `key`, enabled together with this analyzer.
    func setSubAnalyzer(_ sub: any Analyzing, for key: String)
    /// Makes each of `subs` a child named `key` with its index in the array.
    func setSubAnalyzers(_ subs: [any Analyzing], for key: String)
    /// Makes `sub` the child named `key` at `index` (a reused row moved to another index
    /// re-registers there).
    func setSubAnalyzer(_ sub: any Analyzing, for key: String, index: Int?)
    /// A sub-analyzer without an object of its own (e.g. a table section), made on first use:
    /// its node has the keyed ID `[owner, …, key, index]`.
    func keyedSubAnalyzer(for key: String, index: Int?) -> Analyzer
    /// Leaves the parent the analyzer was attached under, keeping its observations; it
    /// registers again once attached again.
    func removeFromParent()
    /// Records an event; kept until the node is registered when recorded earlier.
    func record(_ event: String, with attributes: [String: JSONValue]?)
    /// Records a value update: `ana-updated` with `key-path` and (unless `nil`) `value`.
    func update(_ value: (any JSONValueConvertible)?, for keyPath: String)
    /// Records `ana-updated` with `key-path` and the value of `observee` on every change of
    /// its value; with `initial`, also with its current value at once, as the reference's
    /// key-value observation does (its `.initial` option). Pass `initial: false` when only
    /// changes the user makes are events (a switch's state read when the screen opens).
    func observe<Value>(_ observee: ObservableValue<Value>, for keyPath: String, initial: Bool)
    /// Stops the observations made with ``observe(_:for:initial:)`` for `keyPath` (e.g. a
    /// reused cell that now shows another item).
    func stopObserving(for keyPath: String)
    /// Stops observing and deregisters the node (and its descendants). Called on deinit.
    func detach()
    /// Marks this analyzer focused: analyzers enabled afterwards that would attach to one of
    /// its ancestors attach to it instead.
    func markFocused()
}

extension Analyzing {
    /// Records the current value of `observee` at once and `ana-updated` on every later
    /// change: ``observe(_:for:initial:)`` with `initial: true`.
    public func observe<Value>(_ observee: ObservableValue<Value>, for keyPath: String) {
        observe(observee, for: keyPath, initial: true)
    }

    /// Records an event without attributes.
    public func record(_ event: String) {
        record(event, with: nil)
    }

    /// Records `ana-updated` with `key-path` and `value` as `JSONEncoder` writes `value`
    /// (dates as ISO 8601 strings with milliseconds, like JavaScript's `toJSON`), for any
    /// `Encodable` value; values with a form of their own (``JSONValueConvertible``: strings,
    /// numbers, dates, UUIDs, URLs, …) go to ``update(_:for:)``, which cannot fail.
    ///
    /// ```swift
    /// try analyzer.update(encoding: Order(id: 7, items: ["shoes"]), for: "order")
    /// ```
    /// - Throws: ``ValueEncodingError`` when the value cannot be encoded; nothing is recorded.
    public func update(encoding value: some Encodable, for keyPath: String) throws {
        let json = try JSONValue(encoding: value)
        update(json, for: keyPath)
    }

    /// A keyed sub-analyzer without an index.
    public func keyedSubAnalyzer(for key: String) -> Analyzer {
        keyedSubAnalyzer(for: key, index: nil)
    }
}
