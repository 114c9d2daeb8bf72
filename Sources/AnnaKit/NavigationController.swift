import Anna

/// A stack of controllers of which only the top one is shown.
///
/// Pushing a controller makes it a child, loads its view and shows it in place of the
/// previous top one (which disappears); popping does the reverse. For focus paths, a pushed
/// controller's parent constitutor is the controller below it, so a detail pushed from a
/// master finds its parent through the master, and, when a cell or button of the master had
/// the focus, hangs under that node:
///
/// ```swift
/// func tableView(_ tableView: TableView, didSelectRowAt indexPath: TableIndexPath) {
///     navigationController?.pushViewController(DetailViewController())   // /master/table/cell/detail
/// }
/// ```
@MainActor
open class NavigationController: ViewController {
    /// Creates a navigation controller with `rootViewController` at the bottom of the stack.
    public init(rootViewController: ViewController) {
        super.init()
        addChild(rootViewController)
    }

    /// Creates an empty navigation controller: the first controller pushed becomes the root.
    public override init() {
        super.init()
    }

    /// The stack, bottom first (the same as ``ViewController/children``).
    public var viewControllers: [ViewController] { children }

    /// The controller on top of the stack.
    public var topViewController: ViewController? { children.last }

    /// Pushes `controller` on the stack and shows it; the previous top controller disappears.
    /// Pushing a controller already in the stack does nothing.
    public func pushViewController(_ controller: ViewController) {
        guard controller !== self, !children.contains(where: { $0 === controller }) else { return }
        let previous = topViewController
        addChild(controller)
        guard let container = viewIfLoaded else { return }
        if let shown = previous?.viewIfLoaded, shown.superview === container { shown.removeFromSuperview() }
        container.addSubview(controller.view)
    }

    /// Pops the top controller (it disappears) and shows the one below; the root stays.
    /// - Returns: the popped controller, or `nil` when only the root was left.
    @discardableResult
    public func popViewController() -> ViewController? {
        guard children.count > 1, let top = children.last else { return nil }
        if let shown = top.viewIfLoaded, shown.superview === viewIfLoaded { shown.removeFromSuperview() }
        top.removeFromParent()
        showTopViewController()
        return top
    }

    /// Pops every controller above the root.
    /// - Returns: the popped controllers, bottom first.
    @discardableResult
    public func popToRootViewController() -> [ViewController] {
        var popped: [ViewController] = []
        while let controller = popViewController() { popped.insert(controller, at: 0) }
        return popped
    }

    override func viewWasLoaded() {
        showTopViewController()
    }

    private func showTopViewController() {
        guard let container = viewIfLoaded, let top = topViewController else { return }
        let view = top.view
        if view.superview !== container { container.addSubview(view) }
    }
}
