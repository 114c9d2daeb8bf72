import Anna
import AnnaKit
import CoreJS
import Testing

/// The reference's `TableViewTests` and `ReuseTests`, ported to the kit (tasks in
/// `Fixtures/original`, and `Fixtures/original-ts` in TypeScript: each test runs on both). Steps
/// the reference runs on later turns of the main queue run after `show` here.
@MainActor
@Suite("Reference: TableViewTests, ReuseTests")
struct OriginalTableTests {
    /// The reference's table scenarios that only show a controller and read its task's answers.
    enum ShownTable: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case tableView = "TableViewTests.test_tableView: values recorded in cellForRowAt and willDisplay, in UIKit's order"
        case cellSubviews = "TableViewTests.test_tableViewCellSubviews: a cell's subviews, with the cell appearing first"
        case sectionAppeared = "TableViewTests.test_tableViewSectionShouldReportAppeared"

        var testDescription: String { rawValue }

        /// The controller shown, the reference task's name and the answers it gives.
        @MainActor var scenario: (controller: ViewController, task: String, answers: [JSONValue]) {
            switch self {
            case .tableView:
                (
                    IdentifiedRowsController(), "table.tableView",
                    ["0/0_appeared", "textLabel.text_0-0", "data_00", "3/7_appeared", "textLabel.text_3-7", "data_37"]
                )
            case .cellSubviews:
                (CellSubviewsController(), "table.cellSubviews", ["cell-sc_0", "data-0", "button-sc_0", "cell-sc_19", "data-19", "button-sc_19"])
            case .sectionAppeared: (SectionsOnlyController(), "table.sectionAppeared", [42, 43])
            }
        }
    }

    @Test("TableViewTests: showing a table records what the reference's task answers", arguments: ShownTable.allCases, referenceModules)
    func shownTable(_ table: ShownTable, module: String) async {
        let harness = Harness(module: module)
        let scenario = table.scenario
        harness.show(scenario.controller)
        await harness.expectAnswers(scenario.task, scenario.answers)
    }

    @Test("ReuseTests: a reused row's sub-analyzer inherits the values of the same key path", arguments: referenceModules)
    func inherit(module: String) async {
        let harness = Harness(module: module)
        let controller = CountingRowsController()
        harness.show(controller)
        controller.table.scroll(toRow: TableIndexPath(row: 9, section: 1))
        controller.table.scroll(toRow: TableIndexPath(row: 0, section: 0))
        await harness.expectAnswers("reuse.inherit", [10, 21])
    }

    @Test("ReuseTests: a screen opened from a row disappears under that row after the row scrolled away", arguments: referenceModules)
    func unownedSub(module: String) async {
        let harness = Harness(module: module)
        let controller = SelectingRowsController()
        let navigation = NavigationController(rootViewController: controller)
        harness.show(navigation)
        controller.table.scroll(toRow: TableIndexPath(row: 19))
        navigation.popViewController()
        await harness.expectAnswers("reuse.unownedSub", [42])
    }

    @Test("ReuseTests.test_reload_data: values recorded before a reload do not reach the rows after it", arguments: referenceModules)
    func reloadData(module: String) async {
        let harness = Harness(module: module)
        let controller = ReloadingRowsController()
        harness.show(controller)
        controller.table.reloadData()
        controller.table.cellForRow(at: TableIndexPath(row: 0))?.analyzer.update(7, for: "trigger")
        await harness.expectAnswers("reuse.reloadData", [42])
    }
}

/// A controller `vc` with a table `tb` (its sub-analyzer) of `sections` × `rows` rows.
class RowsController: ViewController, TableViewDataSource, TableViewDelegate {
    let table = TableView()
    let sections: Int
    let rows: Int
    let namesSections: Bool

    init(sections: Int, rows: Int, namesSections: Bool) {
        self.sections = sections
        self.rows = rows
        self.namesSections = namesSections
        super.init()
    }

    override func viewDidLoad() {
        super.viewDidLoad()
        table.register(TableViewCell.self, forCellReuseIdentifier: "r")
        table.dataSource = self
        table.delegate = self
        analyzer.enable(naming: "vc")
        view.addSubview(table)
        analyzer.setSubAnalyzer(table.analyzer, for: "tb")
    }

    func numberOfSections(in tableView: TableView) -> Int { sections }

    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { rows }

    func tableView(_ tableView: TableView, cellForRowAt indexPath: TableIndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "r", for: indexPath)
        cell.analyzer.enable(naming: "rw")
        return cell
    }

    func tableView(_ tableView: TableView, analyticsNameForSection section: Int) -> String? {
        namesSections ? "sc_\(section)" : nil
    }

    // Declared here so subclasses can override them (a protocol's default is bound to the
    // class that declares the conformance).
    func tableView(_ tableView: TableView, willDisplay cell: TableViewCell, forRowAt indexPath: TableIndexPath) {}

    func tableView(_ tableView: TableView, didSelectRowAt indexPath: TableIndexPath) {}
}

/// A cell with an observed label text.
final class LabelCell: TableViewCell {
    let text = ObservableValue<String?>(nil)
}

/// 4 sections of 8 rows; each row records its identifier in `cellForRowAt` and its text and
/// data in `willDisplay`; scrolls to 3/7 when it appears.
final class IdentifiedRowsController: RowsController {
    init() { super.init(sections: 4, rows: 8, namesSections: true) }

    override func viewDidAppear() {
        super.viewDidAppear()
        table.scroll(toRow: TableIndexPath(row: 7, section: 3))
    }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: TableIndexPath) -> TableViewCell {
        let cell: LabelCell
        if let reused = tableView.dequeueReusableCell(withIdentifier: "label") as? LabelCell {
            cell = reused
        } else {
            cell = LabelCell(reuseIdentifier: "label")
            cell.analyzer.enable(naming: "rw")
            cell.analyzer.observe(cell.text, for: "textLabel.text")
        }
        cell.analyzer.update("\(indexPath.section)/\(indexPath.row)", for: "identifier")
        return cell
    }

    override func tableView(_ tableView: TableView, willDisplay cell: TableViewCell, forRowAt indexPath: TableIndexPath) {
        (cell as? LabelCell)?.text.value = "\(indexPath.section)-\(indexPath.row)"
        cell.analyzer.update("\(indexPath.section)\(indexPath.row)", for: "data")
    }
}

/// A cell with a view `vw` holding a button `bt`, each the sub-analyzer of the one above.
final class ViewButtonCell: TableViewCell {
    let content = View()
    let button = Button()

    required init(reuseIdentifier: String?) {
        super.init(reuseIdentifier: reuseIdentifier)
        analyzer.enable(naming: "rw")
        analyzer.setSubAnalyzer(content.analyzer, for: "vw")
        addSubview(content)
        content.analyzer.setSubAnalyzer(button.analyzer, for: "bt")
        content.addSubview(button)
    }
}

/// 20 named sections of one row; `willDisplay` records data on the row's button and taps
/// it; scrolls to the last section when it appears.
final class CellSubviewsController: RowsController {
    init() { super.init(sections: 20, rows: 1, namesSections: true) }

    override func viewDidLoad() {
        super.viewDidLoad()
        table.register(ViewButtonCell.self, forCellReuseIdentifier: "r")
    }

    override func viewDidAppear() {
        super.viewDidAppear()
        table.scroll(toRow: TableIndexPath(row: 0, section: 19))
    }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: TableIndexPath) -> TableViewCell {
        tableView.dequeueReusableCell(withIdentifier: "r", for: indexPath)
    }

    override func tableView(_ tableView: TableView, willDisplay cell: TableViewCell, forRowAt indexPath: TableIndexPath) {
        guard let cell = cell as? ViewButtonCell else { return }
        cell.button.analyzer.update("data-\(indexPath.section)", for: "data")
        cell.button.tap()
    }
}

/// A plain controller (no analyzer) with a table `tb` (a standalone name) of 20 named
/// sections of one unnamed cell; scrolls to the last section when it appears.
final class SectionsOnlyController: ViewController, TableViewDataSource {
    let table = TableView()

    override func viewDidLoad() {
        super.viewDidLoad()
        table.register(TableViewCell.self, forCellReuseIdentifier: "r")
        table.dataSource = self
        view.addSubview(table)
        table.analyzer.enable(naming: "tb")
    }

    override func viewDidAppear() {
        super.viewDidAppear()
        table.scroll(toRow: TableIndexPath(row: 0, section: 19))
    }

    func numberOfSections(in tableView: TableView) -> Int { 20 }

    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { 1 }

    func tableView(_ tableView: TableView, cellForRowAt indexPath: TableIndexPath) -> TableViewCell {
        tableView.dequeueReusableCell(withIdentifier: "r", for: indexPath)
    }

    func tableView(_ tableView: TableView, analyticsNameForSection section: Int) -> String? { "sc_\(section)" }
}

/// 2 sections of 10 rows; each configured row gets a new view `vw`, and row 0/0's records
/// `count_<n>` with a counter starting at 10.
final class CountingRowsController: RowsController {
    var counter = 10

    init() { super.init(sections: 2, rows: 10, namesSections: false) }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: TableIndexPath) -> TableViewCell {
        let cell = super.tableView(tableView, cellForRowAt: indexPath)
        let subview = View()
        cell.addSubview(subview)
        cell.analyzer.setSubAnalyzer(subview.analyzer, for: "vw")
        if indexPath == TableIndexPath(row: 0) {
            subview.analyzer.update(counter, for: "count_\(counter)")
            counter += 1
        }
        return cell
    }
}

/// 20 rows; selects row 0 when it appears, which pushes `vc`.
final class SelectingRowsController: RowsController {
    init() { super.init(sections: 1, rows: 20, namesSections: false) }

    override func viewDidAppear() {
        super.viewDidAppear()
        table.selectRow(at: TableIndexPath(row: 0))
    }

    override func tableView(_ tableView: TableView, didSelectRowAt indexPath: TableIndexPath) {
        let controller = ViewController()
        controller.analyzer.enable(naming: "vc")
        navigationController?.pushViewController(controller)
    }
}

/// 20 rows; row 0 records `answer` when it appears.
final class ReloadingRowsController: RowsController {
    init() { super.init(sections: 1, rows: 20, namesSections: false) }

    override func viewDidAppear() {
        super.viewDidAppear()
        table.cellForRow(at: TableIndexPath(row: 0))?.analyzer.update(7, for: "answer")
    }
}
