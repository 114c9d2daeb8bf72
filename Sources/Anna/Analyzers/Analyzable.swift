/// An object with an analyzer.
public protocol Analyzable: FocusPathConstituting {
    /// The object's analyzer (typically `lazy var analyzer: any Analyzing = Analyzer.analyzer(with: self)`).
    var analyzer: any Analyzing { get }
}

/// What an ``AnalyzableObject`` returns for one of its sub-analyzable keys.
public enum SubAnalyzable {
    /// One sub-analyzable: becomes the child node named by the key.
    case one(any Analyzable)
    /// An array: each becomes a child node named by the key, with its index.
    case many([any Analyzable])
}

/// An analyzable object whose properties are analyzable too (the reference's
/// `subAnalyzableKeys`). Without key-value coding on Linux, it hands them out by key.
///
/// The analyzer asks when it is enabled, on the thread that enables it. For an object of
/// the main actor, adopt ``MainActorAnalyzableObject`` instead.
public protocol AnalyzableObject: Analyzable {
    /// The keys of the sub-analyzables, added as children when the analyzer is enabled.
    static var subAnalyzableKeys: Set<String> { get }
    /// The sub-analyzable(s) for `key`, or `nil` when there is none now.
    func subAnalyzable(for key: String) -> SubAnalyzable?
}

/// ``AnalyzableObject`` for an object of the main actor (a kit controller or view), so it
/// can hand out main-actor state such as a lazily loaded view:
///
/// ```swift
/// final class Screen: ViewController, MainActorAnalyzableObject {
///     static let subAnalyzableKeys: Set<String> = ["view"]
///     func subAnalyzable(for key: String) -> SubAnalyzable? { key == "view" ? .one(view) : nil }
/// }
/// ```
///
/// The analyzer asks on the main actor: at once when enabled there, else as soon as the
/// main actor runs.
@MainActor
public protocol MainActorAnalyzableObject: Analyzable {
    /// The keys of the sub-analyzables, added as children when the analyzer is enabled.
    static var subAnalyzableKeys: Set<String> { get }
    /// The sub-analyzable(s) for `key`, or `nil` when there is none now.
    func subAnalyzable(for key: String) -> SubAnalyzable?
}
