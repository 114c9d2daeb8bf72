import Anna
import AnnaKit
import Testing

/// The reference's `FocusTests`, `ControlTests` and `AnalyzableComponentTests`, ported to the kit
/// (tasks in `Fixtures/original` and `Fixtures/original-ts`, each test on both).
@MainActor
@Suite("Reference: FocusTests, ControlTests, AnalyzableComponentTests")
struct OriginalFocusAndControlTests {
    @Test("FocusTests.test_button: a detail pushed by a tap hangs under the button", arguments: referenceModules)
    func focusButton(module: String) async {
        let harness = Harness(module: module)
        let navigation = NamedNavigationController(rootViewController: ButtonMasterController(pushesDetail: true))
        harness.show(navigation)
        await harness.expectAnswers("focus.button", [42])
    }

    @Test("FocusTests.test_table: a detail pushed by a selected row hangs under the row", arguments: referenceModules)
    func focusTable(module: String) async {
        let harness = Harness(module: module)
        harness.show(NamedNavigationController(rootViewController: SectionRowsMasterController()))
        await harness.expectAnswers("focus.table", [42])
    }

    @Test("FocusTests.test_analyzer_activiated_with_standalone_name_should_handle_focus_marking_properly", arguments: referenceModules)
    func focusStandaloneName(module: String) async {
        let harness = Harness(module: module)
        harness.show(NavigationController(rootViewController: CellButtonMasterController()))
        await harness.expectAnswers("focus.standaloneName", [42])
    }

    @Test("ControlTests.test_button: a tap records touch-up-inside on the button's node", arguments: referenceModules)
    func controlButton(module: String) async {
        let harness = Harness(module: module)
        harness.show(ButtonMasterController(pushesDetail: false))
        await harness.expectAnswers("control.button", [42])
    }

    @Test("AnalyzableComponentTests.test_should_name_sub_analyzers_by_keys", arguments: referenceModules)
    func componentKeys(module: String) async {
        let harness = Harness(module: module)
        harness.show(ComponentController())
        await harness.expectAnswers("component.keys", [0, 1])
    }
}

/// `master` (or `vc`) with a button `bt` tapped when it appears; the tap pushes `detail`.
final class ButtonMasterController: ViewController {
    let button = Button()
    let pushesDetail: Bool

    init(pushesDetail: Bool) {
        self.pushesDetail = pushesDetail
        super.init()
    }

    override func viewDidLoad() {
        super.viewDidLoad()
        analyzer.enable(naming: pushesDetail ? "master" : "vc")
        analyzer.setSubAnalyzer(button.analyzer, for: "bt")
        button.addAction(for: .touchUpInside) { [weak self] _ in
            guard let self, self.pushesDetail else { return }
            let detail = ViewController()
            detail.analyzer.enable(naming: "detail")
            self.navigationController?.pushViewController(detail)
        }
        view.addSubview(button)
    }

    override func viewDidAppear() {
        super.viewDidAppear()
        button.tap()
    }
}

/// `master` with a table of 20 sections named by their numbers, one row `row` each; selects
/// the last row when it appears, which pushes `detail`.
final class SectionRowsMasterController: ViewController, TableViewDataSource, TableViewDelegate {
    let table = TableView()

    override func viewDidLoad() {
        super.viewDidLoad()
        table.dataSource = self
        table.delegate = self
        analyzer.enable(naming: "master")
        view.addSubview(table)
        analyzer.setSubAnalyzer(table.analyzer, for: "table")
    }

    override func viewDidAppear() {
        super.viewDidAppear()
        let indexPath = TableIndexPath(row: 0, section: 19)
        table.scroll(toRow: indexPath)
        table.selectRow(at: indexPath)
    }

    func numberOfSections(in tableView: TableView) -> Int { 20 }

    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { 1 }

    func tableView(_ tableView: TableView, cellForRowAt indexPath: TableIndexPath) -> TableViewCell {
        if let cell = tableView.dequeueReusableCell(withIdentifier: "r") { return cell }
        let cell = TableViewCell(reuseIdentifier: "r")
        cell.analyzer.enable(naming: "row")
        return cell
    }

    func tableView(_ tableView: TableView, analyticsNameForSection section: Int) -> String? { "\(section)" }

    func tableView(_ tableView: TableView, didSelectRowAt indexPath: TableIndexPath) {
        let detail = ViewController()
        detail.analyzer.enable(naming: "detail")
        navigationController?.pushViewController(detail)
    }
}

/// A cell holding a button named `button` (a standalone name); its tap pushes `detail` from
/// the controller that owns the table.
final class ButtonCell: TableViewCell {
    let button = Button()

    required init(reuseIdentifier: String?) {
        super.init(reuseIdentifier: reuseIdentifier)
        addSubview(button)
        button.analyzer.enable(naming: "button")
    }
}

/// `master` with a table `table` (a standalone name) of ten `cell`s with buttons; focuses and
/// taps the tenth row's button when it appears.
final class CellButtonMasterController: ViewController, TableViewDataSource {
    let table = TableView()

    override func viewDidLoad() {
        super.viewDidLoad()
        table.register(ButtonCell.self, forCellReuseIdentifier: "r")
        table.dataSource = self
        analyzer.enable(naming: "master")
        view.addSubview(table)
        table.analyzer.enable(naming: "table")
    }

    override func viewDidAppear() {
        super.viewDidAppear()
        guard let cell = table.cellForRow(at: TableIndexPath(row: 9)) as? ButtonCell else { return }
        cell.button.analyzer.markFocused()
        cell.button.tap()
    }

    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { 10 }

    func tableView(_ tableView: TableView, cellForRowAt indexPath: TableIndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "r", for: indexPath) as! ButtonCell
        cell.button.removeAllActions()
        cell.button.addAction(for: .touchUpInside) { [weak self] _ in
            let detail = ViewController()
            detail.analyzer.enable(naming: "detail")
            self?.navigationController?.pushViewController(detail)
        }
        cell.analyzer.enable(naming: "cell")
        return cell
    }
}

/// `vc` whose root view (sub-analyzable key `view`) has two buttons (key `buttons`), tapped
/// when it appears: each hands out main-actor state, as a UIKit object would.
final class ComponentController: ViewController, MainActorAnalyzableObject {
    static let subAnalyzableKeys: Set<String> = ["view"]

    override func loadView() {
        view = ButtonsView()
    }

    override func viewDidLoad() {
        super.viewDidLoad()
        analyzer.enable(naming: "vc")
    }

    override func viewDidAppear() {
        super.viewDidAppear()
        for button in (view as? ButtonsView)?.buttons ?? [] { button.tap() }
    }

    func subAnalyzable(for key: String) -> SubAnalyzable? {
        key == "view" ? .one(view) : nil
    }
}

/// A view with two buttons, its sub-analyzables under `buttons`.
final class ButtonsView: View, MainActorAnalyzableObject {
    static let subAnalyzableKeys: Set<String> = ["buttons"]
    lazy var buttons: [Button] = [Button(), Button()]

    override init() {
        super.init()
        for button in buttons { addSubview(button) }
    }

    func subAnalyzable(for key: String) -> SubAnalyzable? {
        key == "buttons" ? .many(buttons) : nil
    }
}
