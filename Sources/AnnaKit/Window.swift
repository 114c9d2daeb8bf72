import Anna

/// The root of a view hierarchy, shown when an ``Application`` holds it.
///
/// Its next responder is the application, so analyzers that look up the responder chain
/// reach the application's root analyzer through the window.
///
/// ```swift
/// let window = Window()
/// window.rootViewController = navigation
/// application.window = window        // everything in it that is not hidden appears
/// ```
@MainActor
open class Window: View {
    /// The application showing the window; set by ``Application/window``.
    public internal(set) weak var application: Application? {
        didSet {
            refreshResponderLink()
            propagateVisibility(inherited: inheritedVisibility)
        }
    }

    /// The controller whose view fills the window; setting it adds its view (loading it).
    ///
    /// A new root starts a fresh focus path: it hangs at the root of the focus-path tree, not
    /// under the button or row that was focused last (a login screen's button that swaps in
    /// the main screen does not become the main screen's parent).
    public var rootViewController: ViewController? {
        didSet {
            guard oldValue !== rootViewController else { return }
            if let old = oldValue?.viewIfLoaded, old.superview === self { old.removeFromSuperview() }
            application?.rootAnalyzer.resetFocus()
            if let controller = rootViewController { addSubview(controller.view) }
        }
    }

    /// Creates a window, optionally with a root view controller.
    public init(rootViewController: ViewController? = nil) {
        super.init()
        if let rootViewController {
            self.rootViewController = rootViewController
            addSubview(rootViewController.view)
        }
    }

    override var computedNextResponder: ResponderObject? {
        application
    }

    override var inheritedVisibility: Bool {
        application != nil
    }
}
