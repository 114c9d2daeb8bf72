import Anna

/// A controller of one screen (or part of one): owns a root ``view`` and child controllers.
///
/// The view is made on first use: ``loadView()`` (override to build a custom view), then
/// ``viewDidLoad()``, the usual place to enable the controller's analyzer:
///
/// ```swift
/// final class MasterViewController: ViewController {
///     override func viewDidLoad() {
///         super.viewDidLoad()
///         analyzer.enable(naming: "master")
///     }
/// }
/// ```
///
/// The controller *appears* when its view becomes visible (the window shows it, a navigation
/// controller pushes it) and *disappears* when the view stops being visible. If its analyzer
/// is enabled the kit records `ana-appeared` / `ana-disappeared` on it, then calls
/// ``viewDidAppear()`` / ``viewDidDisappear()``.
@MainActor
open class ViewController: ResponderObject {
    private var loadedView: View?

    /// The parent controller (a container such as a navigation controller); held weakly.
    public private(set) weak var parent: ViewController?
    /// The child controllers, in the order they were added.
    public private(set) var children: [ViewController] = []
    /// Whether the controller has appeared and not disappeared since.
    public private(set) var isVisible = false
    /// A title, for hosts and tasks that want one.
    public var title: String?

    /// Creates a controller; its view is made on first use.
    public override init() {
        super.init()
    }

    /// The root view, loaded on first use (``loadView()`` then ``viewDidLoad()``).
    public var view: View {
        get {
            if let loadedView { return loadedView }
            loadView()
            let view = loadedView ?? install(View())
            viewDidLoad()
            viewWasLoaded()
            return view
        }
        set { install(newValue) }
    }

    /// The root view if it was loaded, without loading it.
    public var viewIfLoaded: View? { loadedView }

    /// Whether the root view was loaded.
    public var isViewLoaded: Bool { loadedView != nil }

    /// Loads the root view now if it was not loaded yet.
    public func loadViewIfNeeded() {
        _ = view
    }

    /// Makes the root view: by default a plain ``View``. Override to assign another view to
    /// ``view``; do not read ``view`` here.
    open func loadView() {
        view = View()
    }

    /// Called once the root view was loaded: build subviews and enable analyzers here.
    open func viewDidLoad() {}

    /// Called after the controller appeared (after `ana-appeared` was recorded).
    open func viewDidAppear() {}

    /// Called after the controller disappeared (after `ana-disappeared` was recorded).
    open func viewDidDisappear() {}

    // MARK: - Children

    /// Adds `child` as a child controller, taking it from its current parent first. The child's
    /// view is not added: add it to one of this controller's views.
    open func addChild(_ child: ViewController) {
        guard child !== self, child.parent !== self else { return }
        child.removeFromParent()
        children.append(child)
        child.parent = self
        childrenDidChange()
    }

    /// Removes the controller from its parent (its view stays where it is).
    public func removeFromParent() {
        guard let parent else { return }
        parent.children.removeAll { $0 === self }
        self.parent = nil
        refreshResponderLink()
        parent.childrenDidChange()
    }

    /// The nearest tab bar controller among the ancestors.
    public var tabBarController: TabBarController? {
        var current = parent
        while let controller = current {
            if let tabBar = controller as? TabBarController { return tabBar }
            current = controller.parent
        }
        return nil
    }

    /// The nearest navigation controller among the ancestors.
    public var navigationController: NavigationController? {
        var current = parent
        while let controller = current {
            if let navigation = controller as? NavigationController { return navigation }
            current = controller.parent
        }
        return nil
    }

    private func childrenDidChange() {
        for child in children { child.refreshResponderLink() }
    }

    // MARK: - Responder chain

    /// The superview of the root view, else the parent (UIKit's rule).
    override var computedNextResponder: ResponderObject? {
        loadedView?.superview ?? parent
    }

    /// In a tab bar controller: the tab bar controller. In a navigation stack: the controller
    /// below this one, or the navigation controller for the bottom one (the reference
    /// library's rule, so a detail pushed from a master looks up through the master).
    /// Elsewhere: the next responder.
    override var computedParentConstitutor: ResponderObject? {
        if let tabBar = parent as? TabBarController { return tabBar }
        if let navigation = parent as? NavigationController,
            let index = navigation.children.firstIndex(where: { $0 === self })
        {
            return index > 0 ? navigation.children[index - 1] : navigation
        }
        return computedNextResponder
    }

    // MARK: - Internals

    @discardableResult
    private func install(_ view: View) -> View {
        if let old = loadedView, old !== view {
            old.owningController = nil
            old.refreshResponderLink()
        }
        loadedView = view
        view.owningController = self
        view.refreshResponderLink()
        refreshResponderLink()
        return view
    }

    /// Called after ``viewDidLoad()`` (a navigation controller shows its top controller here).
    func viewWasLoaded() {}

    /// Called by the root view when its visibility changes.
    /// - Returns: whether the controller's visibility changed (then ``finishAppearance(_:)`` follows).
    func markVisible(_ visible: Bool) -> Bool {
        guard visible != isVisible else { return false }
        isVisible = visible
        return true
    }

    /// Records `ana-appeared` or `ana-disappeared` (when the analyzer is enabled), then calls
    /// ``viewDidAppear()`` or ``viewDidDisappear()``, as the reference's hook does.
    func finishAppearance(_ visible: Bool) {
        analyzerSlot.record(visible ? StandardEvent.appeared : StandardEvent.disappeared)
        if visible { viewDidAppear() } else { viewDidDisappear() }
    }
}
