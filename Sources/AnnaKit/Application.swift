import Anna

/// The application object: the root of the responder chain, holding the ``/Anna/RootAnalyzer``.
///
/// Every analyzer that looks up the responder chain ends at this object's analyzer, whose
/// node is the root of the focus-path tree (`__root__`). Setting ``window`` shows a window:
/// its visible views and controllers appear.
///
/// ```swift
/// let manager = Manager(moduleURL: URL(fileURLWithPath: "analytics"))
/// let application = Application(manager: manager)
/// application.window = Window(rootViewController: NavigationController(rootViewController: master))
/// ```
@MainActor
open class Application: ResponderObject {
    /// The root analyzer (also returned by ``ResponderObject/analyzer``).
    public nonisolated let rootAnalyzer: RootAnalyzer

    /// Creates an application whose root analyzer reports to `manager`.
    public init(manager: Manager) {
        let root = RootAnalyzer(manager: manager)
        rootAnalyzer = root
        super.init(analyzer: root)
    }

    /// The manager every analyzer under this application reports to.
    public nonisolated var manager: Manager {
        rootAnalyzer.manager
    }

    /// The window the application shows; replacing it hides the old one. A new window starts
    /// a fresh focus path, as a new root view controller does (see ``Window/rootViewController``).
    public var window: Window? {
        didSet {
            guard oldValue !== window else { return }
            if let oldValue, oldValue.application === self { oldValue.application = nil }
            window?.application?.window = nil
            rootAnalyzer.resetFocus()
            window?.application = self
        }
    }
}
