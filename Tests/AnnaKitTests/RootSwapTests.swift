import Anna
import AnnaKit
import CoreJS
import Testing

/// A window's new root view controller starts a fresh focus path: the login → main swap of a
/// UIKit app hangs the main screen at the root, with its values, however often it is done.
@MainActor
@Suite("Root swap")
struct RootSwapTests {
    @Test("100 rounds of login → notes → new notes → login: 200 screen views at /notes, each with its count")
    func hundredRounds() async throws {
        let harness = Harness(module: "notes")
        let app = NotesApp(window: harness.window)
        harness.show(app.login())
        for _ in 0..<100 {
            let login = try #require(harness.window.rootViewController as? LoginViewController)
            login.signIn.tap()  // swaps in a notes stack
            let first = try #require(app.shownNotes)
            first.new.tap()  // swaps in another notes stack from the notes screen's button
            let second = try #require(app.shownNotes)
            #expect(second !== first)
            second.signOut.tap()  // back to a login screen
        }

        let results = await harness.results()
        let views = results.filter { $0.value["event"] == "screen_view" }.map(\.value)
        let leaves = results.filter { $0.value["event"] == "screen_leave" }.map(\.value)
        let expected = (0..<200).map { JSONValue.object(["event": "screen_view", "path": "/notes", "count": .number(Double($0))]) }
        #expect(views.count == 200)
        #expect(views == expected)
        #expect(leaves.map { $0["count"] } == (0..<200).map { JSONValue.number(Double($0)) })
        #expect(harness.collector.errorDescriptions == [])
        #expect(try await harness.nodes().map(\.description) == ["/login", "/login/sign-in"])
    }

    @Test("a screen swapped in as the application's new window hangs at the root too")
    func newWindow() async throws {
        let harness = Harness(module: "notes")
        let app = NotesApp(window: harness.window)
        let login = app.login()
        harness.show(login)
        login.swapsWindow = { [application = harness.application] controller in
            application.window = Window(rootViewController: NavigationController(rootViewController: controller))
        }
        login.signIn.tap()
        let results = await harness.results()
        #expect(results.map(\.value).filter { $0["event"] == "screen_view" } == [["event": "screen_view", "path": "/notes", "count": 0]])
        #expect(try await harness.nodes().map(\.description).filter { $0.hasPrefix("/notes") } == ["/notes", "/notes/new", "/notes/sign-out"])
    }

    @Test("a screen pushed from a button still hangs under the button")
    func pushKeepsFocus() async throws {
        let harness = Harness(module: "notes")
        let notes = NotesViewController(count: 0)
        let navigation = harness.showInNavigation(notes)
        notes.new.tap()
        navigation.pushViewController(NotesViewController(count: 1))
        #expect(try await harness.nodes().map(\.description).contains("/notes/new/notes"))
    }
}

/// The screens of a small notes app: a login screen and notes screens, each showing a count.
@MainActor
final class NotesApp {
    private weak var window: Window?
    private var nextCount = 0

    init(window: Window) {
        self.window = window
    }

    /// The notes screen shown at the top of the window's navigation stack, if any.
    var shownNotes: NotesViewController? {
        (window?.rootViewController as? NavigationController)?.topViewController as? NotesViewController
    }

    /// A login screen whose button swaps in a notes stack.
    func login() -> LoginViewController {
        let login = LoginViewController()
        login.swapsWindow = { [weak self] controller in self?.swapRoot(to: NavigationController(rootViewController: controller)) }
        login.makeNotes = { [weak self] in self?.notes() }
        return login
    }

    /// A notes screen showing the next count; "new" swaps in another, "sign-out" a login.
    func notes() -> NotesViewController {
        let notes = NotesViewController(count: nextCount)
        nextCount += 1
        notes.new.addAction(for: .touchUpInside) { [weak self] _ in
            guard let self else { return }
            self.swapRoot(to: NavigationController(rootViewController: self.notes()))
        }
        notes.signOut.addAction(for: .touchUpInside) { [weak self] _ in
            guard let self else { return }
            self.swapRoot(to: self.login())
        }
        return notes
    }

    private func swapRoot(to controller: ViewController) {
        window?.rootViewController = controller
    }
}

/// A login screen: one button that signs in.
final class LoginViewController: ViewController, MainActorAnalyzableObject {
    static let subAnalyzableKeys: Set<String> = ["sign-in"]
    let signIn = Button(title: "Sign in")
    var swapsWindow: ((ViewController) -> Void)?
    var makeNotes: (() -> NotesViewController?)?

    override func viewDidLoad() {
        super.viewDidLoad()
        view.addSubview(signIn)
        signIn.addAction(for: .touchUpInside) { [weak self] _ in
            guard let self, let notes = self.makeNotes?() else { return }
            self.swapsWindow?(notes)
        }
        analyzer.enable(naming: "login")
    }

    func subAnalyzable(for key: String) -> SubAnalyzable? {
        key == "sign-in" ? .one(signIn) : nil
    }
}

/// A notes screen: the count of notes it shows (observed), and two buttons.
final class NotesViewController: ViewController, MainActorAnalyzableObject {
    static let subAnalyzableKeys: Set<String> = ["new", "sign-out"]
    let count: ObservableValue<Int>
    let new = Button(title: "New")
    let signOut = Button(title: "Sign out")

    init(count: Int) {
        self.count = ObservableValue(count)
        super.init()
    }

    override func viewDidLoad() {
        super.viewDidLoad()
        view.addSubview(new)
        view.addSubview(signOut)
        analyzer.enable(naming: "notes")
        analyzer.observe(count, for: "count")
    }

    func subAnalyzable(for key: String) -> SubAnalyzable? {
        switch key {
        case "new": return .one(new)
        case "sign-out": return .one(signOut)
        default: return nil
        }
    }
}
