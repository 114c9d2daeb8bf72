import Anna
import AnnaKit
import AnnaTestSupport
import CoreJS
import Dispatch
import Testing

/// How results reach the host: delegate queue, async sequence, errors, many threads.
@MainActor
@Suite("Delivery")
struct DeliveryTests {
    @Test("results reach the delegate on the delegate queue and the async sequence with their meta")
    func delegateQueue() async throws {
        let queue = DispatchQueue(label: "anna-kit.tests.delegate")
        queue.setSpecific(key: RecordingDelegate.queueKey, value: "kit-delegate")
        let harness = Harness(delegateQueue: queue)
        let stream = harness.manager.results()
        let screen = ScreenViewController(name: "screen")
        let button = Button()
        screen.view.addSubview(button)
        screen.analyzer.setSubAnalyzer(button.analyzer, for: "buy")
        harness.show(screen)
        button.tap()

        let results = await harness.results()
        #expect(results.count == 3)
        #expect(harness.collector.queueLabels == Array(repeating: "kit-delegate", count: 3))
        var streamed: [AnalyticsResult] = []
        for await result in stream {
            streamed.append(result)
            if streamed.count == results.count { break }
        }
        #expect(streamed == results)
        #expect(streamed.last?.meta == ResultMeta(task: "touch-up-inside", path: "/screen/buy", event: "touch-up-inside"))
    }

    @Test("a task that throws reaches didCatch; later events still work")
    func taskError() async throws {
        let harness = Harness()
        let screen = harness.showScreen(named: "screen")

        screen.analyzer.record("explode")
        screen.analyzer.record("ping")

        #expect(await harness.traces() == [Trace("ana-appeared", "/screen"), Trace("ping", "/screen")])
        let descriptions = harness.collector.errorDescriptions
        #expect(descriptions.count == 1)
        #expect(descriptions.first?.hasPrefix("task 'explode' (") == true, "the task's file comes first: \(descriptions)")
        #expect(descriptions.first?.contains(") on '/screen' (explode): the task exploded on purpose") == true, "\(descriptions)")
    }

    @Test("many threads recording at once: every result arrives, each thread's in order")
    func manyThreads() async throws {
        let threads = 8
        let ticks = 50
        let harness = Harness()
        let screen = ScreenViewController(name: "grid")
        let slots = (0..<threads).map { _ in View() }
        slots.forEach(screen.view.addSubview)
        screen.analyzer.setSubAnalyzers(slots.map(\.analyzer), for: "slot")
        // Enabled before they are attached, inside a hidden box: they register from the
        // recording threads, which walk the responder chain there.
        let box = View()
        box.isHidden = true
        screen.view.addSubview(box)
        let free = (0..<threads).map { _ in View() }
        for view in free {
            view.analyzer.enable(naming: "free")
            box.addSubview(view)
        }
        harness.show(screen)

        let targets: [[any Analyzing]] = (0..<threads).map { [slots[$0].analyzer, free[$0].analyzer, screen.analyzer] }
        await Task.detached {
            DispatchQueue.concurrentPerform(iterations: threads) { thread in
                for seq in 0..<ticks {
                    for target in targets[thread] {
                        target.record("tick", with: ["thread": .number(Double(thread)), "seq": .number(Double(seq))])
                    }
                }
            }
        }.value

        let ticksDelivered = await harness.results().filter { $0.meta?.task == "tick" }.map(\.value)
        #expect(ticksDelivered.count == threads * ticks * 3)
        var sequences: [String: [Int]] = [:]
        for value in ticksDelivered {
            guard let path = value["path"]?.stringValue, let thread = value["thread"]?.numberValue,
                let seq = value["seq"]?.numberValue
            else { continue }
            sequences["\(path) \(Int(thread))", default: []].append(Int(seq))
        }
        #expect(sequences.count == threads * 3)
        #expect(sequences.values.allSatisfy { $0 == Array(0..<ticks) })
        let paths = Set(try await harness.nodes().map(\.description))
        #expect(paths == Set(["/grid", "/grid/free"] + (0..<threads).map { "/grid/slot#\($0)" }))
    }
}
