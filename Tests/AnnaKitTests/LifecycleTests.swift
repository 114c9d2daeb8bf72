import Anna
import AnnaKit
import Testing

/// Controllers: loading, child controllers, appearance driven by the window and navigation,
/// and that nothing is kept alive by the kit.
@MainActor
@Suite("Controller lifecycle")
struct LifecycleTests {
    @Test("a child controller appears with its parent's view and disappears when removed")
    func childController() async throws {
        let harness = Harness()
        let log = Log()
        let container = LoggingController(name: "container", log: log)
        let child = LoggingController(name: "child", log: log)
        container.addChild(child)
        container.view.addSubview(child.view)
        harness.show(container)

        #expect(child.parent === container && container.children.map(ObjectIdentifier.init) == [ObjectIdentifier(child)])
        #expect(child.isVisible)
        child.view.removeFromSuperview()
        child.removeFromParent()
        harness.application.window = nil

        #expect(
            log.entries == [
                "container loaded", "child loaded", "container appeared", "child appeared",
                "child disappeared", "container disappeared",
            ])
        #expect(
            await harness.traces() == [
                Trace("ana-appeared", "/container"),
                Trace("ana-appeared", "/container/child"),
                Trace("ana-disappeared", "/container/child"),
                Trace("ana-disappeared", "/container"),
            ])
    }

    @Test("push and pop: the covered controller disappears before the pushed one appears")
    func navigation() async throws {
        let harness = Harness()
        let log = Log()
        let first = LoggingController(name: "first", log: log)
        let navigation = harness.showInNavigation(first)
        let second = LoggingController(name: "second", log: log)

        navigation.pushViewController(second)
        #expect(navigation.viewControllers.map(ObjectIdentifier.init) == [first, second].map(ObjectIdentifier.init))
        #expect(second.navigationController === navigation)
        #expect(navigation.popViewController() === second)
        #expect(navigation.popViewController() == nil)  // the root stays

        #expect(
            log.entries == [
                "first loaded", "first appeared",
                "first disappeared", "second loaded", "second appeared",
                "second disappeared", "first appeared",
            ])
        #expect(
            await harness.traces() == [
                Trace("ana-appeared", "/first"),
                Trace("ana-disappeared", "/first"),
                Trace("ana-appeared", "/first/second"),  // looks up through the controller below
                Trace("ana-disappeared", "/first/second"),
                Trace("ana-appeared", "/first"),
            ])
    }

    @Test("nothing is kept alive once the host lets go")
    func nothingLeaks() async throws {
        let manager = Manager(moduleURL: Harness.moduleURL)
        let probes = Self.playAndDrop(manager: manager)

        #expect(probes.count > 8)
        #expect(probes.allSatisfy { $0.object == nil })
        #expect(try await manager.snapshot(format: .json) == #"{"root":null}"#)
    }

    /// Builds the README's app, uses it, lets go of it, and returns weak references to its objects.
    private static func playAndDrop(manager: Manager) -> [WeakProbe] {
        let application = Application(manager: manager)
        let master = MasterViewController(rows: 8, visibleRows: 3)
        let navigation = NavigationController(rootViewController: master)
        let window = Window(rootViewController: navigation)
        application.window = window
        master.table.scroll(toRow: TableIndexPath(row: 4))
        master.table.selectRow(at: TableIndexPath(row: 5))
        let detail = navigation.topViewController as? DetailViewController
        detail?.button.tap()
        let objects: [AnyObject?] = [application, window, navigation, master, master.table, master.more, detail, detail?.button]
        return (objects + master.table.visibleCells).map(WeakProbe.init)
    }
}

/// An ordered log of lifecycle calls.
@MainActor
final class Log {
    var entries: [String] = []
}

/// A weak reference, to see whether an object went away.
struct WeakProbe {
    weak var object: AnyObject?
}

/// A controller named `name` that logs its lifecycle.
final class LoggingController: ViewController {
    let name: String
    let log: Log

    init(name: String, log: Log) {
        self.name = name
        self.log = log
        super.init()
    }

    override func viewDidLoad() {
        super.viewDidLoad()
        log.entries.append("\(name) loaded")
        analyzer.enable(naming: name)
    }

    override func viewDidAppear() {
        log.entries.append("\(name) appeared")
    }

    override func viewDidDisappear() {
        log.entries.append("\(name) disappeared")
    }
}
