import Anna

/// A rectangle-free view: a node of the view hierarchy that can be shown or hidden.
///
/// A view is *visible* when it is attached to a window that an application shows and neither it
/// nor any ancestor is hidden. When a view whose analyzer is enabled becomes visible, the kit
/// records `ana-appeared` on it; when it stops being visible, `ana-disappeared`. Parents
/// appear before their subviews and disappear after them.
///
/// ```swift
/// let banner = View()
/// banner.analyzer.enable(naming: "banner")
/// screen.view.addSubview(banner)     // records ana-appeared when screen is on screen
/// banner.isHidden = true             // records ana-disappeared
/// ```
@MainActor
open class View: ResponderObject {
    /// The view this one is a subview of; held weakly.
    public private(set) weak var superview: View?
    /// The subviews, back to front.
    public private(set) var subviews: [View] = []
    /// The controller whose root view this is; held weakly.
    weak var owningController: ViewController?

    /// Whether the view is hidden; a hidden view and all its subviews are not visible.
    public var isHidden = false {
        didSet {
            if oldValue != isHidden { propagateVisibility(inherited: inheritedVisibility) }
        }
    }

    /// Whether the view is visible now: attached to a shown window, with no hidden view on
    /// the way up.
    public private(set) var isVisible = false

    /// Creates a view that is not in any hierarchy.
    public override init() {
        super.init()
    }

    /// The window the view is in, if any.
    public var window: Window? {
        var current: View? = self
        while let view = current {
            if let window = view as? Window { return window }
            current = view.superview
        }
        return nil
    }

    /// Whether `ancestor` is this view or one of its superviews.
    public func isDescendant(of ancestor: View) -> Bool {
        var current: View? = self
        while let view = current {
            if view === ancestor { return true }
            current = view.superview
        }
        return false
    }

    /// Adds `view` on top of the subviews, taking it from its current superview first.
    ///
    /// When this view is visible and `view` is not hidden, `view` and its subviews appear.
    /// - Precondition: `view` is not this view or one of its ancestors.
    public func addSubview(_ view: View) {
        precondition(!isDescendant(of: view), "A view cannot be added to itself or to one of its subviews.")
        view.detachFromSuperview()
        subviews.append(view)
        view.superview = self
        view.superviewDidChange()
        view.propagateVisibility(inherited: isVisible)
    }

    /// Removes the view from its superview; it and its subviews disappear if they were visible.
    public func removeFromSuperview() {
        guard superview != nil else { return }
        detachFromSuperview()
        propagateVisibility(inherited: inheritedVisibility)
    }

    // MARK: - Hierarchy

    override var computedNextResponder: ResponderObject? {
        owningController ?? superview
    }

    private func detachFromSuperview() {
        guard let superview else { return }
        superview.subviews.removeAll { $0 === self }
        self.superview = nil
        superviewDidChange()
    }

    private func superviewDidChange() {
        refreshResponderLink()
        owningController?.refreshResponderLink()
    }

    // MARK: - Visibility

    /// Whether the view would be visible if it were not hidden: its superview is visible (a
    /// window answers whether an application shows it).
    var inheritedVisibility: Bool {
        superview?.isVisible ?? false
    }

    /// Brings the visibility of the view and its subtree up to date.
    ///
    /// The order is UIKit's: appearing runs parent first (the view's `ana-appeared`, a
    /// table's rows, then the subviews); disappearing runs the other way round. Controllers
    /// come last, once the whole subtree is up to date (their visible rows exist by then):
    /// each records `ana-appeared` and gets ``ViewController/viewDidAppear()``, parents
    /// first, or `ana-disappeared` and ``ViewController/viewDidDisappear()``. A hook that
    /// changes the hierarchy again (hides the view, say) runs its own update; this one then
    /// stops, so events never come out of order.
    /// - Parameter inherited: whether the superview (or, for a window, the application) shows it.
    func propagateVisibility(inherited: Bool) {
        AppearanceTransaction.run { updateVisibility(inherited: inherited) }
    }

    private func updateVisibility(inherited: Bool) {
        let visible = inherited && !isHidden
        guard visible != isVisible else { return }
        let controller = owningController
        if visible {
            isVisible = true
            if let controller, controller.markVisible(true) { AppearanceTransaction.enqueue(controller, visible: true) }
            analyzerSlot.record(StandardEvent.appeared)
            guard isVisible else { return }
            didBecomeVisible()
            for subview in subviews where subview.superview === self {
                guard isVisible else { return }
                subview.updateVisibility(inherited: true)
            }
        } else {
            for subview in subviews where subview.superview === self {
                subview.updateVisibility(inherited: false)
            }
            guard isVisible else { return }
            isVisible = false
            analyzerSlot.record(StandardEvent.disappeared)
            if let controller, controller.markVisible(false) { AppearanceTransaction.enqueue(controller, visible: false) }
        }
    }

    /// Called when the view has become visible, before its subviews are updated (a table
    /// lays out its rows here).
    func didBecomeVisible() {}
}

/// The controllers whose visibility changed during one visibility update, told once the
/// update's whole subtree is done (UIKit calls `viewDidAppear` after the views, and a
/// table's visible rows, are in place).
@MainActor
enum AppearanceTransaction {
    private static var depth = 0
    private static var pending: [(controller: ViewController, visible: Bool)] = []

    /// Runs `update`; the outermost run then tells the controllers, in the order they changed.
    static func run(_ update: () -> Void) {
        depth += 1
        update()
        depth -= 1
        guard depth == 0 else { return }
        while !pending.isEmpty {
            let (controller, visible) = pending.removeFirst()
            controller.finishAppearance(visible)
        }
    }

    static func enqueue(_ controller: ViewController, visible: Bool) {
        pending.append((controller, visible))
    }
}
