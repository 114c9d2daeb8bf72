/// An object in the host's responder tree: the counterpart of `UIResponder.next`.
public protocol Responder: AnyObject {
    /// The next object up the chain (a view's superview or controller, a controller's parent, …).
    var nextResponder: (any Responder)? { get }
}

/// An object that takes part in building focus paths.
///
/// When an analyzer is not added as a sub-analyzer, it looks for its parent by walking
/// `parentConstitutor()` from its owner until it meets an object with an enabled analyzer.
///
/// Analyzers call `parentConstitutor()`, `redirectedConstitutor()` and `analyzer` from
/// whichever thread records an event, while holding the analyzers' lock: implementations
/// must be thread-safe and must never wait for another thread (the main thread included).
public protocol FocusPathConstituting: AnyObject {
    /// The next object to look at when searching for a parent analyzer.
    func parentConstitutor() -> (any FocusPathConstituting)?
}

extension FocusPathConstituting where Self: Responder {
    /// By default, the next responder.
    public func parentConstitutor() -> (any FocusPathConstituting)? {
        nextResponder as? any FocusPathConstituting
    }
}

/// An object that sends the parent search somewhere else when the search reaches it, e.g. a
/// container that stands for another object in focus paths.
public protocol FocusPathConstitutionRedirecting: AnyObject {
    /// Where the search continues instead of at this object; `nil` to not redirect.
    func redirectedConstitutor() -> (any FocusPathConstituting)?
}

extension FocusPathConstitutionRedirecting {
    /// By default, no redirection.
    public func redirectedConstitutor() -> (any FocusPathConstituting)? { nil }
}

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
public protocol AnalyzableObject: Analyzable {
    /// The keys of the sub-analyzables, added as children when the analyzer is enabled.
    static var subAnalyzableKeys: Set<String> { get }
    /// The sub-analyzable(s) for `key`, or `nil` when there is none now.
    func subAnalyzable(for key: String) -> SubAnalyzable?
}
