import Anna

/// The base of every object in the kit's responder chain: the kit's `UIResponder`.
///
/// It gives a host object what Anna needs: an ``analyzer`` (made on first use; its namespace
/// is the dynamic type's name, so `task/<TypeName>.js` loads when its node registers), the
/// ``nextResponder`` and the ``parentConstitutor()`` that focus paths are built from.
///
/// Kit objects belong to the main actor, like UIKit's. Anna reads the two links from any
/// thread, so each object keeps a lock-guarded copy that the kit refreshes whenever the
/// hierarchy changes. When the object goes away its analyzer is detached, which deregisters
/// its node and the nodes below it.
@MainActor
open class ResponderObject: Responder, Analyzable {
    let link = ResponderLink()
    let analyzerSlot: AnalyzerSlot

    /// Creates an object whose analyzer is made on first use of ``analyzer``.
    public init() {
        analyzerSlot = AnalyzerSlot()
    }

    /// Creates an object with a ready-made analyzer (the application's root analyzer).
    init(analyzer: Analyzer) {
        analyzerSlot = AnalyzerSlot(analyzer)
    }

    deinit {
        analyzerSlot.detach()
    }

    /// The object's analyzer: enable it (`analyzer.enable(naming: "master")`) or add it as a
    /// sub-analyzer to put the object in the focus-path tree.
    ///
    /// Once enabled, the kit records the object's events on it: `ana-appeared` and
    /// `ana-disappeared` for views and controllers, `touch-up-inside` for buttons,
    /// `did-select` for table cells. Safe to read, and to record on, from any thread; enable,
    /// add and detach it on the main actor, where the kit checks whether it is enabled.
    public nonisolated var analyzer: any Analyzing {
        analyzerSlot.analyzer(for: self)
    }

    /// The next object up the responder chain: a view's controller or superview, a
    /// controller's superview or parent, a window's application. Safe to read from any thread.
    public nonisolated var nextResponder: (any Responder)? {
        link.next
    }

    /// Where Anna looks next for a parent analyzer; by default the next responder. A
    /// controller in a navigation stack answers the controller below it instead.
    ///
    /// Called from any thread. A subclass that overrides it must only read state that is
    /// safe to read there (e.g. `let` properties).
    open nonisolated func parentConstitutor() -> (any FocusPathConstituting)? {
        link.constitutor
    }

    /// The next responder computed from the hierarchy (overridden by each kind of object).
    var computedNextResponder: ResponderObject? { nil }

    /// The parent constitutor computed from the hierarchy; the next responder by default.
    var computedParentConstitutor: ResponderObject? { computedNextResponder }

    /// Copies the computed links to where Anna reads them; called after every change of them.
    func refreshResponderLink() {
        link.update(next: computedNextResponder, constitutor: computedParentConstitutor)
    }
}
