/// An object in the host's responder tree: the counterpart of `UIResponder.next`.
public protocol Responder: AnyObject {
    /// The next object up the chain (a view's superview or controller, a controller's parent, …).
    var nextResponder: (any Responder)? { get }
}
