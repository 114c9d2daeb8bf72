import Anna
import AnnaKit
import Testing

/// The reference's `PathTests`, ported to the kit: the same structures, the same expected values
/// (the tasks are in `Fixtures/original`, and in TypeScript in `Fixtures/original-ts`: each test
/// runs on both). Steps the reference runs on the next turn of the main queue run after `show`
/// here.
@MainActor
@Suite("Reference: PathTests")
struct OriginalPathTests {
    @Test("test_deregister: a subtree moved after its parent went away is found again", arguments: referenceModules)
    func deregister(module: String) async {
        let harness = Harness(module: module)
        let controller = NestedViewsController()
        harness.show(controller)
        controller.beta?.removeFromSuperview()
        controller.beta = nil
        if let delta = controller.delta { controller.view.addSubview(delta) }
        controller.gamma?.tap()

        await harness.expectAnswers("path.deregister", [42])
    }

    @Test("test_dataDisplaysOnView: values shown on a view, first-displayed", arguments: referenceModules)
    func dataDisplaysOnView(module: String) async {
        let harness = Harness(module: module)
        harness.show(LabelOnViewController())
        await harness.expectAnswers("path.dataDisplaysOnView", ["42", "43"])
    }

    @Test("test_dataDisplaysOnViewController: values shown on a controller", arguments: referenceModules)
    func dataDisplaysOnViewController(module: String) async {
        let harness = Harness(module: module)
        harness.show(LabelOnControllerController())
        await harness.expectAnswers("path.dataDisplaysOnViewController", ["42"])
    }

    @Test("test_navigatedControllers: an empty navigation controller pushes in viewDidAppear", arguments: referenceModules)
    func navigatedControllers(module: String) async {
        let harness = Harness(module: module)
        harness.show(PushingNavigationController())
        await harness.expectAnswers("path.navigatedControllers", [42])
    }

    @Test("test_tabController: tabs as sub-analyzers appear as they are selected", arguments: referenceModules)
    func tabController(module: String) async {
        let harness = Harness(module: module)
        harness.show(NamedTabsController(name: "tb"))
        await harness.expectAnswers("path.tabController", [42, 43])
    }

    @Test("test_customRootTabBarController: a redirect hangs a pushed screen under the selected tab", arguments: referenceModules)
    func customRootTabBarController(module: String) async {
        let harness = Harness(module: module)
        let navigation = NamedNavigationController(rootViewController: HomeTabsController(name: "home"))
        harness.show(navigation)
        await harness.expectAnswers("path.customRootTabBarController", [42])
    }
}

/// `vc` with nested views `alpha/beta/delta` and a button `gamma`, each the sub-analyzer of
/// the one above; taps the button when it appears.
final class NestedViewsController: ViewController {
    var beta: View?
    var delta: View?
    var gamma: Button?

    override func viewDidLoad() {
        super.viewDidLoad()
        var superview = view
        var superAnalyzer = analyzer
        for name in ["alpha", "beta", "delta"] {
            let child = View()
            superview.addSubview(child)
            superAnalyzer.setSubAnalyzer(child.analyzer, for: name)
            superview = child
            superAnalyzer = child.analyzer
            if name == "beta" { beta = child }
            if name == "delta" { delta = child }
        }
        let button = Button()
        superAnalyzer.setSubAnalyzer(button.analyzer, for: "gamma")
        gamma = button
        superview.addSubview(button)
        analyzer.enable(naming: "vc")
    }

    override func viewDidAppear() {
        super.viewDidAppear()
        gamma?.tap()
    }
}

/// `vc` whose root view `vw` observes a label's text, set to 42 then 43 when it appears.
final class LabelOnViewController: ViewController {
    let text = ObservableValue<String?>(nil)

    override func viewDidLoad() {
        super.viewDidLoad()
        analyzer.enable(naming: "vc")
        analyzer.setSubAnalyzer(view.analyzer, for: "vw")
        view.analyzer.observe(text, for: "text")
    }

    override func viewDidAppear() {
        super.viewDidAppear()
        text.value = "42"
        text.value = "43"
    }
}

/// `vc` observing a label's text, set to 42 when it appears.
final class LabelOnControllerController: ViewController {
    let text = ObservableValue<String?>(nil)

    override func viewDidLoad() {
        super.viewDidLoad()
        analyzer.enable(naming: "vc")
        analyzer.observe(text, for: "text")
    }

    override func viewDidAppear() {
        super.viewDidAppear()
        text.value = "42"
    }
}

/// An empty navigation controller `nv` that pushes `ms` then `dt` when it appears.
final class PushingNavigationController: NavigationController {
    override func viewDidLoad() {
        analyzer.enable(naming: "nv")
    }

    override func viewDidAppear() {
        super.viewDidAppear()
        let master = ViewController()
        master.analyzer.enable(naming: "ms")
        pushViewController(master)
        let detail = ViewController()
        detail.analyzer.enable(naming: "dt")
        pushViewController(detail)
    }
}

/// A navigation controller named `nv`.
final class NamedNavigationController: NavigationController {
    override func viewDidLoad() {
        super.viewDidLoad()
        analyzer.enable(naming: "nv")
    }
}

/// A tab bar controller whose tabs `one` and `two` are its sub-analyzers; selects `two` when
/// it appears.
class NamedTabsController: TabBarController {
    let name: String

    init(name: String) {
        self.name = name
        super.init()
    }

    override func viewDidLoad() {
        let controllers = ["one", "two"].map { name -> ViewController in
            let controller = ViewController()
            analyzer.setSubAnalyzer(controller.analyzer, for: name)
            return controller
        }
        viewControllers = controllers
        analyzer.enable(naming: name)
    }

    override func viewDidAppear() {
        super.viewDidAppear()
        selectedIndex = 1
    }
}

/// The reference's custom root: tabs that answer themselves for their own tabs and the
/// selected tab for anyone else; pushes `detail` when it appears.
final class HomeTabsController: NamedTabsController {
    override func viewDidAppear() {
        super.viewDidAppear()
        let detail = ViewController()
        detail.analyzer.enable(naming: "detail")
        navigationController?.pushViewController(detail)
    }

    override func redirectedConstitutor(for another: any FocusPathConstituting) -> (any FocusPathConstituting)? {
        guard let controller = another as? ViewController else { return super.redirectedConstitutor(for: another) }
        return viewControllers.contains { $0 === controller } ? self : selectedViewController
    }
}
