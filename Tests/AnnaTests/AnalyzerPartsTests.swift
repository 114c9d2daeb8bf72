import CoreJS
import Dispatch
import Foundation
import Testing

@testable import Anna

/// A host object for the analyzer's parts: a link in a chain of parent constitutors, with
/// an analyzer, optionally redirecting the parent search to `redirect`.
private final class Link: Analyzable, FocusPathConstitutionRedirecting, @unchecked Sendable {
    let parent: (any FocusPathConstituting)?
    weak var redirect: (any FocusPathConstituting)?
    lazy var own = Analyzer(owner: self)
    var analyzer: any Analyzing { own }
    init(_ parent: (any FocusPathConstituting)?) { self.parent = parent }
    func parentConstitutor() -> (any FocusPathConstituting)? { parent }
    func redirectedConstitutor(for another: any FocusPathConstituting) -> (any FocusPathConstituting)? { redirect }
}

/// A link of the main actor that redirects the search to `target` (a kit container's shape).
@MainActor
private final class MainActorLink: FocusPathConstituting, MainActorFocusPathConstitutionRedirecting, @unchecked Sendable {
    nonisolated let target: Link
    nonisolated init(target: Link) { self.target = target }
    nonisolated func parentConstitutor() -> (any FocusPathConstituting)? { nil }
    func redirectedConstitutor(for another: any FocusPathConstituting) -> (any FocusPathConstituting)? { target }
}

/// The root of a tree: an application object owning the root analyzer of a manager that
/// never runs a module (registrations only queue operations).
private final class App: Analyzable, @unchecked Sendable {
    let root: RootAnalyzer
    var analyzer: any Analyzing { root }
    init() {
        let manager = Manager(
            moduleURL: URL(fileURLWithPath: "/m"),
            dependency: .init(fileAccess: InMemoryFileAccess([:]), standardOutput: MemoryOutputSink()))
        root = RootAnalyzer(manager: manager)
    }
    func parentConstitutor() -> (any FocusPathConstituting)? { nil }

    /// A link below the application whose analyzer is enabled as `screen`.
    func screen() -> Link {
        let screen = Link(self)
        screen.own.enable(naming: "screen")
        return screen
    }
}

private func analyzer(of link: Link) -> Analyzer {
    link.own
}

@Suite("Analyzer+Registration: when and as what a node registers")
struct AnalyzerRegistrationTests {
    @Test("an analyzer registers once its parent chain reaches the root, not before")
    func waitsForTheChain() {
        let app = App()
        let top = Link(nil)
        let leaf = Link(top)
        analyzer(of: leaf).enable(naming: "leaf")
        analyzer(of: leaf).record("tap", with: nil)
        #expect(analyzer(of: leaf).registeredNodeID == nil)
        let connected = Link(app)
        let child = Link(connected)
        analyzer(of: connected).enable(naming: "screen")
        analyzer(of: child).enable(naming: "child")
        analyzer(of: child).record("tap", with: nil)
        #expect(analyzer(of: child).registeredNodeID != nil)
        #expect(analyzer(of: child).isDescendant(of: analyzer(of: connected)))
        #expect(analyzer(of: child).rootAnalyzer === app.root)
    }

    @Test("a keyed sub-analyzer's node is its parent's ID followed by its key and index, one per slot")
    func keyedNode() throws {
        let app = App()
        let screen = app.screen()
        let section = analyzer(of: screen).keyedSubAnalyzer(for: "section", index: 2)
        #expect(analyzer(of: screen).keyedSubAnalyzer(for: "section", index: 2) === section)
        let screenID = try #require(analyzer(of: screen).registeredNodeID)
        #expect(section.registeredNodeID == NodeID(owner: screenID.owner, keys: [.name("section"), .index(2)]))
        analyzer(of: screen).removeKeyedSubAnalyzer(for: "section", index: 2)
        #expect(section.registeredNodeID == nil)
        #expect(analyzer(of: screen).keyedSubAnalyzer(for: "section", index: 2) !== section)
    }

    @Test("removeFromParent deregisters; attaching again registers anew")
    func reattach() throws {
        let app = App()
        let screen = app.screen()
        let cell = Link(nil)
        analyzer(of: screen).setSubAnalyzer(analyzer(of: cell), for: "cell", index: 0)
        #expect(analyzer(of: cell).registeredNodeID != nil)
        analyzer(of: cell).removeFromParent()
        #expect(analyzer(of: cell).registeredNodeID == nil)
        analyzer(of: screen).setSubAnalyzer(analyzer(of: cell), for: "cell", index: 1)
        #expect(analyzer(of: cell).registeredNodeID != nil)
        #expect(analyzer(of: cell).isDescendant(of: analyzer(of: screen)))
    }
}

@Suite("Analyzer+ParentLookup: which node an analyzer hangs under")
struct AnalyzerParentLookupTests {
    @Test("the nearest enabled analyzer up the chain is the parent; objects without one are skipped")
    func nearestEnabled() {
        let app = App()
        let screen = Link(app)
        let middle = Link(screen)  // its analyzer is never enabled
        let leaf = Link(middle)
        analyzer(of: screen).enable(naming: "screen")
        analyzer(of: leaf).enable(naming: "leaf")
        #expect(analyzer(of: leaf).parentAnalyzer === analyzer(of: screen))
        #expect(analyzer(of: middle).registeredNodeID == nil)
    }

    @Test("a redirecting object sends the search to the object it names")
    func redirect() {
        let app = App()
        let selected = Link(app)
        analyzer(of: selected).enable(naming: "selected")
        let container = Link(app)
        container.redirect = selected
        let leaf = Link(container)
        analyzer(of: leaf).enable(naming: "leaf")
        #expect(analyzer(of: leaf).parentAnalyzer === analyzer(of: selected))
    }

    @Test("an analyzer enabled after a focus below its chain's parent hangs under the focused one")
    func focus() {
        let app = App()
        let screen = app.screen()
        let button = Link(screen)
        analyzer(of: button).enable(naming: "button")
        analyzer(of: button).markFocused()
        let detail = Link(screen)
        analyzer(of: detail).enable(naming: "detail")
        #expect(analyzer(of: detail).parentAnalyzer === analyzer(of: button))
        app.root.resetFocus()
        let other = Link(screen)
        analyzer(of: other).enable(naming: "other")
        #expect(analyzer(of: other).parentAnalyzer === analyzer(of: screen))
    }

    @Test("focus marks reach the root again after a reset, a mark elsewhere and the root's re-registration")
    func focusAgain() {
        let app = App()
        let screen = app.screen()
        let (button, other) = (Link(screen), Link(screen))
        analyzer(of: button).enable(naming: "button")
        analyzer(of: other).enable(naming: "other")
        /// Enables a new analyzer under the screen's chain and says which analyzer it hangs under.
        func openedParent() -> Analyzer? {
            let opened = Link(screen)
            analyzer(of: opened).enable(naming: "opened")
            return analyzer(of: opened).parentAnalyzer
        }
        analyzer(of: button).recordFocusing("touch-up-inside", with: nil)
        analyzer(of: button).markFocused()
        #expect(openedParent() === analyzer(of: button))
        analyzer(of: other).markFocused()
        analyzer(of: button).markFocused()
        #expect(openedParent() === analyzer(of: button))
        app.root.resetFocus()
        analyzer(of: button).markFocused()
        #expect(app.root.focusedAnalyzer === analyzer(of: button))
        // Deregistering the tree cancels the registrations the root is found through; the
        // next mark registers the chain again and finds the root on its new registration.
        app.root.detach()
        #expect(analyzer(of: button).registeredNodeID == nil)
        app.root.resetFocus()
        analyzer(of: button).markFocused()
        #expect(analyzer(of: button).registeredNodeID != nil)
        #expect(analyzer(of: button).rootAnalyzer === app.root)
        #expect(openedParent() === analyzer(of: button))
    }
}

@Suite("Analyzer+MainActor: what belongs to the main actor is asked there")
struct AnalyzerMainActorTests {
    @Test("onMainActor runs its body on the main actor and declines elsewhere")
    func onMainActorAnswers() async {
        let onMain = await MainActor.run { onMainActor { 42 } }
        #expect(onMain == 42)
        let elsewhere = await Task.detached { onMainActor { 42 } }.value
        #expect(elsewhere == nil)
    }

    @Test("a lookup off the main actor that meets a main-actor redirect waits, then registers there")
    func waitsForTheMainActor() async {
        let app = App()
        let target = Link(app)
        analyzer(of: target).enable(naming: "target")
        let container = MainActorLink(target: target)
        let leaf = Link(container)
        // Enabled on another thread while the main actor is held, so the lookup it schedules
        // there cannot run before the check.
        let registeredAtOnce = await MainActor.run {
            let done = DispatchSemaphore(value: 0)
            let answer = UncheckedBox(false)
            Thread.detachNewThread {
                analyzer(of: leaf).enable(naming: "leaf")
                answer.value = analyzer(of: leaf).registeredNodeID != nil
                done.signal()
            }
            done.wait()
            return answer.value
        }
        #expect(!registeredAtOnce)
        // The lookup made again on the main queue registers the leaf under the redirect's target.
        await MainActor.run {}
        let registered = await withCheckedContinuation { continuation in
            DispatchQueue.main.async { continuation.resume(returning: analyzer(of: leaf).registeredNodeID != nil) }
        }
        #expect(registered)
        #expect(analyzer(of: leaf).parentAnalyzer === analyzer(of: target))
    }
}

/// A value handed from one thread to another behind a semaphore.
private final class UncheckedBox<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
