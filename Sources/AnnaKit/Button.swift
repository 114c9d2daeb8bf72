import Anna

/// A button: a control with a title.
///
/// ```swift
/// let add = Button(title: "Add to cart")
/// add.addAction(for: .touchUpInside) { _ in cart.value += 1 }
/// add.tap()      // records touch-up-inside, marks focus, adds to the cart
/// ```
@MainActor
open class Button: Control {
    /// The title.
    public var title: String?

    /// Creates a button.
    public init(title: String? = nil) {
        self.title = title
        super.init()
    }

    /// A tap: the same as `sendActions(for: .touchUpInside)`.
    public func tap() {
        sendActions(for: .touchUpInside)
    }
}
