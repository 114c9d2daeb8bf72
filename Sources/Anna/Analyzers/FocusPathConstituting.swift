/// An object that takes part in building focus paths.
///
/// When an analyzer is not added as a sub-analyzer, it looks for its parent by walking
/// `parentConstitutor()` from its owner until it meets an object with an enabled analyzer.
///
/// Analyzers call `parentConstitutor()` and `analyzer` from whichever thread records an
/// event, while holding the analyzers' lock: implementations must be thread-safe and must
/// never wait for another thread (the main thread included).
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
///
/// Called from any thread, under the analyzers' lock (see ``FocusPathConstituting``). For an
/// object of the main actor, adopt ``MainActorFocusPathConstitutionRedirecting`` instead.
public protocol FocusPathConstitutionRedirecting: AnyObject {
    /// Where the search continues instead of at this object, when it came from `another`
    /// (the object whose parent constitutor is this one); `nil` to not redirect.
    ///
    /// A tab container answers itself for its own tabs and its selected tab for everyone
    /// else, so a screen pushed above it hangs under the tab the user sees.
    func redirectedConstitutor(for another: any FocusPathConstituting) -> (any FocusPathConstituting)?
}

/// ``FocusPathConstitutionRedirecting`` for an object of the main actor (a kit controller).
///
/// The analyzers ask it on the main actor: a lookup made on another thread leaves its
/// events waiting and is made again on the main actor, which then sends them.
@MainActor
public protocol MainActorFocusPathConstitutionRedirecting: AnyObject {
    /// Where the search continues instead of at this object, when it came from `another`;
    /// `nil` to not redirect.
    func redirectedConstitutor(for another: any FocusPathConstituting) -> (any FocusPathConstituting)?
}
