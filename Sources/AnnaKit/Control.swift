import Anna

/// A view that sends actions for control events, like `UIControl`.
///
/// ``sendActions(for:)`` stands for the user's interaction: when the control's analyzer is
/// enabled it records the event (e.g. `touch-up-inside`) and marks the analyzer focused, then
/// calls the actions. So a screen opened from an action hangs under the control in focus
/// paths.
@MainActor
open class Control: View {
    /// A control event; its ``name`` is the event recorded on the analyzer.
    public struct Event: Hashable, Sendable, CustomStringConvertible {
        /// The event's name in task patterns, e.g. `touch-up-inside`.
        public let name: String

        /// Creates an event named `name`.
        public init(name: String) {
            self.name = name
        }

        /// A tap that ended inside the control.
        public static let touchUpInside = Event(name: "touch-up-inside")
        /// The control's value changed (a switch, a slider).
        public static let valueChanged = Event(name: "value-changed")

        /// The name.
        public var description: String { name }
    }

    private var actions: [(event: Event, handler: @MainActor (Control) -> Void)] = []

    /// Creates a control without actions.
    public override init() {
        super.init()
    }

    /// Adds `handler`, called with the control each time `event` is sent.
    public func addAction(for event: Event, _ handler: @escaping @MainActor (Control) -> Void) {
        actions.append((event, handler))
    }

    /// Removes every action.
    public func removeAllActions() {
        actions.removeAll()
    }

    /// Sends `event`: records it and marks focus (when the analyzer is enabled), then calls
    /// the actions added for it, in order.
    public func sendActions(for event: Event) {
        analyzerSlot.record(event.name)
        analyzerSlot.markFocused()
        for action in actions where action.event == event {
            action.handler(self)
        }
    }
}
