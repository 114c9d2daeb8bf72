import Synchronization

/// The analyzer at the root of the focus-path tree, owned by the application object and
/// made with the ``Manager``. Its node is `__root__`; it also remembers which analyzer has
/// the focus.
public final class RootAnalyzer: Analyzer, @unchecked Sendable {
    private static let sequence = Atomic<Int>(0)
    /// The root node's name.
    static let rootName = "__root__"

    /// The manager every node under this root reports to.
    public let manager: Manager
    weak var focusedAnalyzer: Analyzer?
    /// The ``Analyzer/number`` of ``focusedAnalyzer`` (-1: none): focusing the same analyzer
    /// again leaves the weak reference alone.
    private var focusedNumber = -1
    var focusSequence = 0

    /// Creates the root analyzer; it registers `__root__` on first use.
    public init(manager: Manager) {
        self.manager = manager
        super.init(rootNamed: Self.rootName)
    }

    static func nextSequence() -> Int {
        sequence.add(1, ordering: .relaxed).newValue
    }

    /// The root is always enabled as `__root__`; naming it again changes nothing.
    public override func enable(naming name: String) {}

    /// Deregisters the whole tree; the root stays enabled and registers again on next use.
    public override func detach() {
        Self.lock.withLock {
            super.detach()
            enabled = true
        }
    }

    override func register() -> Bool {
        if nodeID != nil { return true }
        sendRegistration(id: NodeID(number), name: Self.rootName, under: nil, manager: manager)
        registration?.rootAnalyzer = Unmanaged.passUnretained(self)
        return true
    }

    /// Forgets which analyzer has the focus: analyzers enabled from now on hang where their
    /// responder chain leads, not under the control or row focused last. A new window root
    /// starts a fresh focus path this way (the kit's `Window` and `Application` call it).
    public func resetFocus() {
        Self.lock.withLock {
            focusedAnalyzer = nil
            focusedNumber = -1
            focusSequence = Self.nextSequence()
        }
    }

    func focus(on analyzer: Analyzer) {
        if focusedNumber != analyzer.number {
            focusedAnalyzer = analyzer
            focusedNumber = analyzer.number
        }
        focusSequence = Self.nextSequence()
    }
}
