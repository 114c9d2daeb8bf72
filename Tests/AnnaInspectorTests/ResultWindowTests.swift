import Anna
import CoreJS
import Testing

@testable import AnnaInspector

@Suite("The inspector's window of the last results")
struct ResultWindowTests {
    private func results(_ values: [Int]) -> [AnalyticsResult] {
        values.map { AnalyticsResult(value: .number(Double($0))) }
    }

    private func summary(_ kept: [InspectedResult]) -> [[Int]] {
        kept.map { [$0.sequence, Int($0.result.value.numberValue ?? -1)] }
    }

    @Test("numbers results in order across batches and counted ones; reads give the newest, oldest first")
    func batches() {
        var window = ResultWindow(limit: 4)
        window.append(results([1, 2, 3]), time: 1)
        window.append(results([4, 5, 6]), time: 2)
        window.append(results([9, 10]), skipped: 2, time: 3)
        #expect(window.count == 10)
        #expect(summary(window.after(0)) == [[5, 5], [6, 6], [9, 9], [10, 10]])
        #expect(summary(window.after(6)) == [[9, 9], [10, 10]])
        #expect(summary(window.after(0, limit: 1)) == [[10, 10]])
        #expect(window.after(10).isEmpty)
        #expect(window.after(0).map(\.time) == [2, 2, 3, 3])
    }

    @Test("a batch larger than the limit gives only its newest; old batches are dropped")
    func largeBatch() {
        var window = ResultWindow(limit: 3)
        window.append(results([1]), time: 1, line: 7)
        window.append(results(Array(2...11)), time: 2)
        #expect(window.count == 11)
        #expect(summary(window.after(0)) == [[9, 9], [10, 10], [11, 11]])
        window.append(results([12]), time: 3, line: 9)
        #expect(summary(window.after(0)) == [[10, 10], [11, 11], [12, 12]])
        #expect(window.after(11).map(\.line) == [9])
    }

    @Test("only counted results move the count, and nothing is read")
    func countedOnly() {
        var window = ResultWindow(limit: 3)
        window.append([], skipped: 5, time: 1)
        #expect(window.count == 5)
        #expect(window.after(0).isEmpty)
    }
}
