import Anna
import AnnaKit
import CoreJS
import Testing

/// Observed values, first-displayed semantics, and events recorded before registration.
@MainActor
@Suite("Values and early events")
struct ValueAndPendingTests {
    @Test("an observed value records ana-updated; the event that first showed it follows visibility")
    func firstDisplayed() async throws {
        let harness = Harness()
        let screen = harness.showScreen(named: "screen")
        let badge = View()
        let count = ObservableValue(0)
        badge.analyzer.enable(naming: "badge")
        badge.analyzer.observe(count, for: "count")  // not shown yet

        screen.view.addSubview(badge)  // shows count 0
        count.value = 1  // shown by the update
        badge.isHidden = true
        count.value = 2  // not shown
        badge.isHidden = false  // shown by the appearance

        let probes = await harness.results().filter { $0.value["probe"] == "badge" }.map(\.value)
        #expect(
            probes == [
                ["probe": "badge", "count": 0, "visible": false, "shownBy": nil],
                ["probe": "badge", "count": 0, "visible": true, "shownBy": "ana-appeared"],
                ["probe": "badge", "count": 1, "visible": true, "shownBy": "ana-updated"],
                ["probe": "badge", "count": 2, "visible": false, "shownBy": nil],
                ["probe": "badge", "count": 2, "visible": true, "shownBy": "ana-appeared"],
            ])
        let updates = await harness.results().filter { $0.meta?.task == "ana-updated" }.map(\.value)
        #expect(updates.map(\.["keyPath"]) == ["count", "count", "count"])
        #expect(updates.map(\.["value"]) == [0, 1, 2])
    }

    @Test("events recorded before a node is registered are delivered, in order, once it is")
    func beforeRegistration() async throws {
        let harness = Harness()
        let screen = harness.showScreen(named: "screen")
        let banner = View()
        banner.analyzer.enable(naming: "banner")
        banner.analyzer.record("ping")
        banner.analyzer.update("Sale", for: "title")
        #expect(await harness.traces(includingUpdates: true) == [Trace("ana-appeared", "/screen")])

        screen.view.addSubview(banner)

        #expect(
            await harness.traces(includingUpdates: true) == [
                Trace("ana-appeared", "/screen"),
                Trace("ping", "/screen/banner"),
                Trace("ana-updated", "/screen/banner"),
                Trace("ana-appeared", "/screen/banner"),
            ])
    }

    @Test("a controller enabled before its window is shown appears once shown")
    func beforeWindow() async throws {
        let harness = Harness()
        let screen = ScreenViewController(name: "screen")
        harness.window.rootViewController = screen  // loads the view: enabled, not registered
        screen.analyzer.record("ping")
        #expect(try await harness.nodes().isEmpty)

        harness.application.window = harness.window

        #expect(await harness.traces() == [Trace("ping", "/screen"), Trace("ana-appeared", "/screen")])
    }
}
