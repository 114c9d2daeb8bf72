import Anna

/// A container that shows one of its child controllers at a time, like `UITabBarController`.
///
/// Setting ``viewControllers`` makes them the children and shows the first; setting
/// ``selectedIndex`` shows another (the one shown before disappears). For focus paths, each
/// tab's parent constitutor is the tab bar controller.
///
/// A subclass can answer the parent search with
/// ``redirectedConstitutor(for:)``, e.g. itself for its own tabs and the selected tab for
/// everyone else, so a screen pushed above it hangs under the tab the user sees:
///
/// ```swift
/// override func redirectedConstitutor(for another: any FocusPathConstituting) -> (any FocusPathConstituting)? {
///     viewControllers.contains { $0 === another } ? nil : selectedViewController
/// }
/// ```
@MainActor
open class TabBarController: ViewController, MainActorFocusPathConstitutionRedirecting {
    private var selection = 0

    /// Creates a tab bar controller without tabs.
    public override init() {
        super.init()
    }

    /// The tabs, in order. Setting them replaces the children and shows the first.
    public var viewControllers: [ViewController] {
        get { children }
        set {
            hideSelected()
            for child in children { child.removeFromParent() }
            for controller in newValue { addChild(controller) }
            selection = 0
            showSelected()
        }
    }

    /// The index of the tab shown; setting an index out of range does nothing.
    public var selectedIndex: Int {
        get { selection }
        set {
            guard newValue != selection, children.indices.contains(newValue) else { return }
            hideSelected()
            selection = newValue
            showSelected()
        }
    }

    /// The tab shown, if any.
    public var selectedViewController: ViewController? {
        children.indices.contains(selection) ? children[selection] : nil
    }

    /// Where the parent search continues when it reaches this controller from `another`:
    /// by default nowhere else (`nil`). Called on the main actor.
    open func redirectedConstitutor(for another: any FocusPathConstituting) -> (any FocusPathConstituting)? {
        nil
    }

    override func viewWasLoaded() {
        showSelected()
    }

    private func hideSelected() {
        guard let container = viewIfLoaded, let shown = selectedViewController?.viewIfLoaded, shown.superview === container
        else { return }
        shown.removeFromSuperview()
    }

    private func showSelected() {
        guard let container = viewIfLoaded, let selected = selectedViewController else { return }
        let view = selected.view
        if view.superview !== container { container.addSubview(view) }
    }
}
