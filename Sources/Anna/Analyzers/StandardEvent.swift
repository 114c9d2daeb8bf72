/// The standard event names and the properties of `ana-updated`: the names the JavaScript
/// core (`js/anna`) gives meaning to, spelled as the reference library on iOS records them.
///
/// The analyzers, the event-stream codec and AnnaKit use these; a host that reports
/// visibility or values from its own UI toolkit records them too:
///
/// ```swift
/// analyzer.record(StandardEvent.appeared, with: nil)
/// ```
///
/// Every other event name is the app's own and means nothing to the core beyond its tasks.
public enum StandardEvent {
    /// `ana-appeared`: the node became visible. The core marks a hidden node visible (the
    /// first one ever is its first-displayed event); appearing while visible changes nothing.
    /// The reference records it from `viewDidAppear` and when a view enters a visible window.
    public static let appeared = "ana-appeared"

    /// `ana-disappeared`: the node stopped being visible; the core hides it.
    public static let disappeared = "ana-disappeared"

    /// `ana-updated`: a value of the node changed (``Analyzing/update(_:for:)``, or an
    /// observed ``ObservableValue``, the reference's KVO). Its properties are ``keyPath``
    /// and, unless the value is `nil`, ``value``; the core keeps the value per key path.
    public static let updated = "ana-updated"

    /// `key-path`: the property of ``updated`` naming which value changed.
    public static let keyPath = "key-path"

    /// `value`: the property of ``updated`` holding the new value (absent for `nil`).
    public static let value = "value"
}
