import Anna
import AnnaKit
import AnnaTestSupport
import CoreJS
import Foundation
import Synchronization
import Testing

/// One event as the fixture's tracing tasks report it: the event, the node's path and index.
struct Trace: Equatable, CustomStringConvertible {
    var event: String
    var path: String
    var index: Int?

    init(_ event: String, _ path: String, _ index: Int? = nil) {
        self.event = event
        self.path = path
        self.index = index
    }

    /// What a table records when the rows `left` scroll away or reload and the rows `came`
    /// are shown in their place: each row that left disappears, then each row that came
    /// records its value (in `cellForRowAt`) and appears.
    static func rowsReplaced(_ path: String, left: ClosedRange<Int>, came: ClosedRange<Int>) -> [Trace] {
        left.map { Trace("ana-disappeared", path, $0) }
            + came.flatMap { [Trace("ana-updated", path, $0), Trace("ana-appeared", path, $0)] }
    }

    /// The tasks of `task/index.js` that trace an event.
    static let tracedTasks: Set<String> = ["ana-appeared", "ana-disappeared", "did-select", "touch-up-inside", "ping", "ana-updated"]

    init?(_ result: AnalyticsResult) {
        guard let task = result.meta?.task, Self.tracedTasks.contains(task),
            let event = result.value["event"]?.stringValue, let path = result.value["path"]?.stringValue
        else { return nil }
        self.init(event, path, result.value["index"]?.numberValue.map { Int($0) })
    }

    var description: String { "\(event) \(path)\(index.map { "#\($0)" } ?? "")" }
}

/// A node of a JSON snapshot.
struct SnapshotNode: Equatable, CustomStringConvertible {
    var path: String
    var index: Int?
    var id: String

    /// Every node below the root of `json` (a `snapshot(format: .json)`), parents first.
    static func all(in json: String) throws -> [SnapshotNode] {
        let snapshot = try JSONValue(parsing: json)
        var nodes: [SnapshotNode] = []
        func visit(_ node: JSONValue, path: String) {
            for child in node["children"]?.arrayValue ?? [] {
                let childPath = path + "/" + (child["name"]?.stringValue ?? "?")
                nodes.append(
                    SnapshotNode(
                        path: childPath, index: child["index"]?.numberValue.map { Int($0) },
                        id: child["id"]?.stringValue ?? ""))
                visit(child, path: childPath)
            }
        }
        if let root = snapshot["root"] { visit(root, path: "") }
        return nodes
    }

    var description: String { "\(path)\(index.map { "#\($0)" } ?? "")" }
}

/// The modules the reference's scenarios run on: `Fixtures/original` (JavaScript) and the same
/// tasks in TypeScript, `Fixtures/original-ts`; each scenario must answer the same on both.
let referenceModules = ["original", "original-ts"]

/// A manager on the fixture module, an application and a window, for one test.
@MainActor
final class Harness {
    static var moduleURL: URL { moduleURL(named: "kit") }

    /// The fixture module `Fixtures/<name>`.
    static func moduleURL(named name: String) -> URL {
        Bundle.module.resourceURL!.appendingPathComponent("Fixtures/\(name)", isDirectory: true)
    }

    let manager: Manager
    let collector = RecordingDelegate()
    let application: Application
    let window = Window()

    init(delegateQueue: DispatchQueue? = nil, module: String = "kit", debug: Bool = false) {
        manager = Manager(moduleURL: Self.moduleURL(named: module), dependency: Manager.Dependency(debug: debug))
        if let delegateQueue { manager.delegateQueue = delegateQueue }
        manager.delegate = collector
        application = Application(manager: manager)
    }

    /// Shows `controller` as the window's root.
    func show(_ controller: ViewController) {
        window.rootViewController = controller
        application.window = window
    }

    /// Shows a screen named `name` as the window's root; the screen, to put views on.
    @discardableResult
    func showScreen(named name: String) -> ScreenViewController {
        let screen = ScreenViewController(name: name)
        show(screen)
        return screen
    }

    /// Shows the reference README's master (`rows` items, `visibleRows` shown, in cells of
    /// `cellClass`) as the window's root; the master.
    @discardableResult
    func showMaster(rows: Int = 10, visibleRows: Int = 3, cellClass: ItemCell.Type = ItemCell.self) -> MasterViewController {
        let master = MasterViewController(rows: rows, visibleRows: visibleRows, cellClass: cellClass)
        show(master)
        return master
    }

    /// Shows `root` in a navigation controller as the window's root (the reference's
    /// master screen set-up); the navigation controller, to push onto.
    @discardableResult
    func showInNavigation(_ root: ViewController) -> NavigationController {
        let navigation = NavigationController(rootViewController: root)
        show(navigation)
        return navigation
    }

    /// Every result delivered so far, once everything recorded before was handled.
    func results() async -> [AnalyticsResult] {
        await manager.flush()
        return collector.results
    }

    /// The traced events delivered so far, without value updates unless asked for.
    func traces(includingUpdates: Bool = false) async -> [Trace] {
        await results().compactMap(Trace.init).filter { includingUpdates || $0.event != "ana-updated" }
    }

    /// The values of the results that answer `test` (the `original` fixture's tasks tag each
    /// result with the reference test it belongs to), in order.
    func answers(_ test: String) async -> [JSONValue] {
        await results().filter { $0.value["test"]?.stringValue == test }.compactMap { $0.value["value"] }
    }

    /// Expects the results that answer `test` to be exactly `expected`, in order, and the
    /// manager to have caught no error (a task that threw, a result it could not deliver).
    func expectAnswers(_ test: String, _ expected: [JSONValue], sourceLocation: SourceLocation = #_sourceLocation) async {
        let answers = await answers(test)
        #expect(answers == expected, sourceLocation: sourceLocation)
        #expect(collector.errorDescriptions == [], sourceLocation: sourceLocation)
    }

    /// Expects that only the screen `path` recorded anything (its `ana-appeared`), that the
    /// tree holds only it, and that no error was caught.
    func expectOnlyScreen(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(await traces(includingUpdates: true) == [Trace("ana-appeared", path)], sourceLocation: sourceLocation)
        #expect(try await nodes().map(\.description) == [path], sourceLocation: sourceLocation)
        #expect(collector.errorDescriptions == [], sourceLocation: sourceLocation)
    }

    /// Expects what self-naming cells record in a list (a table or collection view) whose
    /// analyzer is enabled as `list` on the screen `/plain`, showing two items at a time, once
    /// it scrolled to item 2 and selected it: each item appears at `list/cell` with its index,
    /// item 0 leaves, item 2 is selected; the tree holds the three items; no error was caught.
    func expectSelfNamedCellsScrolled(list: String, cell: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let (list, cell) = ("/plain/\(list)", "/plain/\(list)/\(cell)")
        #expect(
            await traces() == [
                Trace("ana-appeared", list), Trace("ana-appeared", cell, 0), Trace("ana-appeared", cell, 1),
                Trace("ana-appeared", "/plain"), Trace("ana-disappeared", cell, 0), Trace("ana-appeared", cell, 2),
                Trace("did-select", cell, 2),
            ], sourceLocation: sourceLocation)
        #expect(
            try await nodes().map(\.description) == ["/plain", list, "\(cell)#0", "\(cell)#1", "\(cell)#2"],
            sourceLocation: sourceLocation)
        #expect(collector.errorDescriptions == [], sourceLocation: sourceLocation)
    }

    /// The nodes of the tree now.
    func nodes() async throws -> [SnapshotNode] {
        try SnapshotNode.all(in: try await manager.snapshot(format: .json))
    }
}

// MARK: - The reference README's screens

/// A cell whose title is observed (`ana-updated` with key path `title`).
class ItemCell: TableViewCell {
    let title = ObservableValue<String?>(nil)

    required init(reuseIdentifier: String?) {
        super.init(reuseIdentifier: reuseIdentifier)
        analyzer.observe(title, for: "title")
    }
}

/// An item cell that clears its title when it is reused, as ``TableViewCell`` tells
/// subclasses to.
final class ResettingItemCell: ItemCell {
    override func prepareForReuse() {
        super.prepareForReuse()
        title.value = nil
    }
}

/// The reference README's master: a table of items and a "more" button; selecting a row or
/// tapping the button pushes a detail.
final class MasterViewController: ViewController, MainActorAnalyzableObject, TableViewDataSource, TableViewDelegate {
    static let subAnalyzableKeys: Set<String> = ["table", "more"]

    let table: TableView
    let more: Button
    let cellClass: ItemCell.Type
    var items: [String]

    init(rows: Int = 10, visibleRows: Int = 3, cellClass: ItemCell.Type = ItemCell.self) {
        table = TableView(visibleRowCount: visibleRows)
        more = Button(title: "More")
        self.cellClass = cellClass
        items = (0..<rows).map { "Item \($0)" }
        super.init()
    }

    override func viewDidLoad() {
        super.viewDidLoad()
        table.register(cellClass, forCellReuseIdentifier: "Item")
        table.dataSource = self
        table.delegate = self
        view.addSubview(table)
        view.addSubview(more)
        more.addAction(for: .touchUpInside) { [weak self] _ in
            self?.navigationController?.pushViewController(DetailViewController())
        }
        analyzer.enable(naming: "master")
    }

    func subAnalyzable(for key: String) -> SubAnalyzable? {
        switch key {
        case "table": return .one(table)
        case "more": return .one(more)
        default: return nil
        }
    }

    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
        items.count
    }

    func tableView(_ tableView: TableView, cellForRowAt indexPath: TableIndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "Item", for: indexPath)
        (cell as? ItemCell)?.title.value = items[indexPath.row]
        return cell
    }

    func tableView(_ tableView: TableView, didSelectRowAt indexPath: TableIndexPath) {
        navigationController?.pushViewController(DetailViewController())
    }
}

/// The reference README's detail: one button.
final class DetailViewController: ViewController, MainActorAnalyzableObject {
    static let subAnalyzableKeys: Set<String> = ["button"]
    let button: Button

    override init() {
        button = Button(title: "Buy")
        super.init()
    }

    override func viewDidLoad() {
        super.viewDidLoad()
        view.addSubview(button)
        analyzer.enable(naming: "detail")
    }

    func subAnalyzable(for key: String) -> SubAnalyzable? {
        key == "button" ? .one(button) : nil
    }
}

/// A controller that only names itself: a screen to put test views on.
final class ScreenViewController: ViewController {
    let name: String

    init(name: String) {
        self.name = name
        super.init()
    }

    override func viewDidLoad() {
        super.viewDidLoad()
        analyzer.enable(naming: name)
    }
}
