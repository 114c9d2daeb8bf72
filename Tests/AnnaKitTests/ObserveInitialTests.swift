import Anna
import AnnaKit
import CoreJS
import Testing

/// `observe(_:for:initial:)`: the current value at once (the default, as the reference's
/// `.initial` observation), or only later changes.
@MainActor
@Suite("Observing with and without the initial value")
struct ObserveInitialTests {
    /// A screen with a pin switch whose state it observes.
    final class PinScreen: ViewController {
        let pinned = ObservableValue(false)
        let initial: Bool?

        init(initial: Bool?) {
            self.initial = initial
            super.init()
        }

        override func viewDidLoad() {
            super.viewDidLoad()
            analyzer.enable(naming: "note")
            if let initial {
                analyzer.observe(pinned, for: "pinned", initial: initial)
            } else {
                analyzer.observe(pinned, for: "pinned")
            }
        }
    }

    private func updates(opening screen: PinScreen, toggles: Int) async -> [JSONValue] {
        let harness = Harness(module: "notes")
        harness.show(screen)
        for _ in 0..<toggles { screen.pinned.value.toggle() }
        return await harness.results().map(\.value).filter { $0["event"] == "ana-updated" }.compactMap { $0["value"] }
    }

    @Test("initial: false records only the changes: opening the screen records nothing")
    func withoutInitial() async {
        #expect(await updates(opening: PinScreen(initial: false), toggles: 0) == [])
        #expect(await updates(opening: PinScreen(initial: false), toggles: 2) == [true, false])
    }

    @Test("by default, and with initial: true, the current value is recorded at once")
    func withInitial() async {
        #expect(await updates(opening: PinScreen(initial: nil), toggles: 1) == [false, true])
        #expect(await updates(opening: PinScreen(initial: true), toggles: 0) == [false])
    }

    @Test("a value observed without its initial value is not known to tasks until it changes")
    func latestValueWaitsForAChange() async {
        let harness = Harness(module: "notes")
        let screen = PinScreen(initial: false)
        harness.show(screen)
        screen.analyzer.record("probe")
        screen.pinned.value = true
        screen.analyzer.record("probe")
        let pinned = await harness.results().map(\.value).filter { $0["event"] == "probe" }.map { $0["pinned"] }
        #expect(pinned == [.null, true])
    }
}
