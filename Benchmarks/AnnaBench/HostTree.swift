import Anna

/// The application object: the top of the responder chain, owning the ``RootAnalyzer``.
final class BenchApplication: Responder, Analyzable {
    let analyzer: any Analyzing
    var nextResponder: (any Responder)? { nil }

    init(manager: Manager) {
        analyzer = RootAnalyzer(manager: manager)
    }
}

/// A plain host object (the app, a screen, a list, a cell): a responder with an analyzer.
///
/// Its parent link is set before its analyzer is enabled and never changes. Only the
/// measuring task touches these objects (the analyzers read the chain on the thread that
/// records, which is that task's).
final class BenchView: Responder, Analyzable {
    private weak var parent: (any Responder)?
    /// The analyzer, typed as the class for ``Analyzer/setSubAnalyzer(_:for:index:)``.
    private(set) lazy var node: Analyzer = Analyzer(owner: self)

    var nextResponder: (any Responder)? { parent }
    var analyzer: any Analyzing { node }

    init(parent: (any Responder)?) {
        self.parent = parent
    }
}

/// One screen: `screen<i>` enabled by name under `app`, its `list` a sub-analyzer, and
/// the list's 20 `cell`s indexed sub-analyzers (22 nodes).
final class BenchScreen {
    /// Cells per list.
    static let cellCount = 20
    /// Nodes per screen: the screen, its list and the cells.
    static let nodeCount = 2 + cellCount

    let view: BenchView
    let list: BenchView
    let cells: [BenchView]

    /// Creates the screen's objects and registers its nodes (the app must be registered).
    init(number: Int, under app: BenchView) {
        view = BenchView(parent: app)
        list = BenchView(parent: view)
        let list = self.list
        cells = (0..<Self.cellCount).map { _ in BenchView(parent: list) }
        view.node.enable(naming: "screen\(number)")
        view.node.setSubAnalyzer(list.node, for: "list", index: nil)
        for (index, cell) in cells.enumerated() {
            list.node.setSubAnalyzer(cell.node, for: "cell", index: index)
        }
    }

    /// Deregisters the screen's node; the core removes the list and cells with it.
    func detach() {
        view.node.detach()
    }
}

/// The W1 tree on the public API: `__root__` → `app` → `screen0…screen<n-1>`, each with a
/// `list` of 20 indexed `cell`s (2 + 22 n nodes).
///
/// ```swift
/// let tree = HostTree(manager: manager)   // registers __root__ and app
/// tree.addScreens(50)                     // 1,100 more nodes
/// EventMix.record(k, on: tree.cellAnalyzers[k % tree.cellAnalyzers.count])
/// ```
final class HostTree {
    /// Screens of the W1 tree (W1, W3, W4): 1,102 nodes.
    static let w1Screens = 50

    let application: BenchApplication
    let app: BenchView
    private(set) var screens: [BenchScreen] = []
    /// The cells' analyzers in order: cell `c` is cell `c % 20` of screen `c / 20`.
    private(set) var cellAnalyzers: [any Analyzing] = []

    /// Registers `__root__` and `app`.
    init(manager: Manager) {
        application = BenchApplication(manager: manager)
        app = BenchView(parent: application)
        app.node.enable(naming: "app")
    }

    /// Every node: the root, the app and the screens'.
    var nodeCount: Int { 2 + screens.count * BenchScreen.nodeCount }

    /// Adds and registers `count` screens, numbered on from the last.
    func addScreens(_ count: Int) {
        for _ in 0..<count {
            let screen = BenchScreen(number: screens.count, under: app)
            screens.append(screen)
            cellAnalyzers.append(contentsOf: screen.cells.map(\.analyzer))
        }
    }

    /// Screen `number` goes away (its analyzers detached, its objects released) and a fresh
    /// one with the same name takes its place: 22 deregistered and 22 new nodes.
    func replaceScreen(_ number: Int) {
        screens[number].detach()
        let fresh = BenchScreen(number: number, under: app)
        screens[number] = fresh
        let first = number * BenchScreen.cellCount
        cellAnalyzers.replaceSubrange(first..<first + BenchScreen.cellCount, with: fresh.cells.map(\.analyzer))
    }
}
