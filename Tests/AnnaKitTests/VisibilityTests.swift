import Anna
import AnnaKit
import Testing

/// `ana-appeared` / `ana-disappeared` as views enter and leave a visible window.
@MainActor
@Suite("Visibility")
struct VisibilityTests {
    @Test("views appear and disappear with their window, their ancestors and their own isHidden")
    func visibility() async throws {
        let harness = Harness()
        let screen = harness.showScreen(named: "screen")
        let panel = View()
        let label = View()
        let silent = View()
        _ = silent.analyzer  // made but not enabled: records nothing
        panel.addSubview(label)
        panel.addSubview(silent)
        panel.analyzer.enable(naming: "panel")
        label.analyzer.enable(naming: "label")

        screen.view.addSubview(panel)
        #expect(label.isVisible && panel.isVisible && silent.isVisible)
        panel.isHidden = true
        #expect(!label.isVisible)
        label.isHidden = true
        panel.isHidden = false
        label.isHidden = false
        harness.window.isHidden = true
        #expect(!screen.isVisible)
        harness.window.isHidden = false
        label.removeFromSuperview()
        harness.application.window = nil

        #expect(
            await harness.traces() == [
                Trace("ana-appeared", "/screen"),
                Trace("ana-appeared", "/screen/panel"),
                Trace("ana-appeared", "/screen/panel/label"),
                Trace("ana-disappeared", "/screen/panel/label"),  // the panel is hidden
                Trace("ana-disappeared", "/screen/panel"),
                Trace("ana-appeared", "/screen/panel"),  // the panel is shown; the label still hidden
                Trace("ana-appeared", "/screen/panel/label"),
                Trace("ana-disappeared", "/screen/panel/label"),  // the window is hidden
                Trace("ana-disappeared", "/screen/panel"),
                Trace("ana-disappeared", "/screen"),
                Trace("ana-appeared", "/screen/panel"),  // the window is shown again: views, then controller
                Trace("ana-appeared", "/screen/panel/label"),
                Trace("ana-appeared", "/screen"),
                Trace("ana-disappeared", "/screen/panel/label"),  // the label is removed
                Trace("ana-disappeared", "/screen/panel"),  // the application drops the window
                Trace("ana-disappeared", "/screen"),
            ])
    }

    @Test("a view outside any window, or in a window no application shows, is not visible")
    func notInAShownWindow() async throws {
        let harness = Harness()
        let loose = View()
        loose.analyzer.enable(naming: "loose")
        let window = Window()
        let inWindow = View()
        inWindow.analyzer.enable(naming: "orphan")
        window.addSubview(inWindow)

        #expect(!loose.isVisible && !inWindow.isVisible)
        #expect(inWindow.window === window)
        #expect(await harness.traces().isEmpty)

        // Once the application shows the window, the view in it appears (and registers), once;
        // the loose view still has nothing to appear in.
        harness.application.window = window
        #expect(inWindow.isVisible && !loose.isVisible)
        #expect(await harness.traces() == [Trace("ana-appeared", "/orphan")])
    }

    @Test("the responder chain runs view, controller, window, application")
    func responderChain() {
        let harness = Harness()
        let screen = harness.showScreen(named: "screen")
        let button = Button()
        screen.view.addSubview(button)

        #expect(button.nextResponder === screen.view)
        #expect(screen.view.nextResponder === screen)
        #expect(screen.nextResponder === harness.window)
        #expect(harness.window.nextResponder === harness.application)
        #expect(harness.application.nextResponder == nil)
    }
}

/// Re-entrant changes from lifecycle hooks keep events in order.
@MainActor
@Suite("Visibility, re-entrant")
struct ReentrantVisibilityTests {
    @Test("a controller that hides its view when it appears records appeared, then disappeared")
    func hideOnAppear() async throws {
        let harness = Harness()
        let screen = HidingController()
        let child = View()
        child.analyzer.enable(naming: "child")
        screen.view.addSubview(child)
        harness.show(screen)

        #expect(!screen.view.isVisible && !child.isVisible && !screen.isVisible)
        #expect(
            await harness.traces() == [
                // The child view appears before the controller's viewDidAppear hides it all.
                Trace("ana-appeared", "/hiding/child"),
                Trace("ana-appeared", "/hiding"),
                Trace("ana-disappeared", "/hiding/child"),
                Trace("ana-disappeared", "/hiding"),
            ])
    }
}

/// A screen named `hiding` that hides its own view as soon as it appears.
final class HidingController: ViewController {
    override func viewDidLoad() {
        super.viewDidLoad()
        analyzer.enable(naming: "hiding")
    }

    override func viewDidAppear() {
        view.isHidden = true
    }
}
