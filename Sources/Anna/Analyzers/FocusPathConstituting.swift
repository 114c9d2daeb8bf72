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
