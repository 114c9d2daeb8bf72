@testable import Anna
import CoreJS
import Testing

@Suite("Bridge internals: string numbering and the work queue")
struct BridgeInternalsTests {
    @Test("strings are numbered by exact bytes, in first-seen order, past many table growths")
    func interner() {
        var interner = StringInterner()
        var seen: [[Int]] = []
        for text in ["did-select", "ana-updated", "did-select", "\u{E9}", "e\u{301}", "", ""] {
            let (number, isNew) = interner.number(of: text)
            seen.append([number, isNew ? 1 : 0])
        }
        // "\u{E9}" and "e\u{301}" are equal Swift strings but different JavaScript ones.
        #expect(seen == [[0, 1], [1, 1], [0, 0], [2, 1], [3, 1], [4, 1], [4, 0]])
        let many = (0..<5_000).map { "key-\($0)-of-a-string-longer-than-fifteen-bytes" }
        let first = many.map { interner.number(of: $0) }
        let again = many.map { interner.number(of: $0) }
        #expect(first.map(\.number) == Array(5..<5_005) && first.allSatisfy(\.isNew))
        #expect(again.map(\.number) == Array(5..<5_005) && !again.contains(where: \.isNew))
        #expect(interner.number(of: "e\u{301}").number == 3)
        #expect(interner.count == 5_005)
        interner.removeAll()
        #expect(interner.count == 0)
        #expect(interner.number(of: "ana-updated").number == 0)
    }

    @Test("the work queue hands out chunks in order, with each task between the right operations")
    func workQueueOrder() {
        var queue = WorkQueue()
        let firstSchedules = queue.scheduleDrain(), secondSchedules = queue.scheduleDrain()
        #expect(firstSchedules && !secondSchedules)
        let total = WorkQueue.chunkSize * 2 + 10
        var sent: [String] = []
        for index in 0..<total {
            if index % 1_000 == 7 {
                queue.append(.barrier {})
                sent.append("task")
            }
            queue.append(TimedOperation(.deregister(id: NodeID(index)), time: Double(index)))
            sent.append("op \(index)")
        }
        var received: [String] = []
        var chunks = 0
        while var chunk = queue.takeChunk() {
            chunks += 1
            #expect(chunk.count <= WorkQueue.chunkSize)
            var start = 0
            for (position, _) in chunk.tasks {
                received += chunk.operations[start..<position].map(Self.describe)
                received.append("task")
                start = position
            }
            received += chunk.operations[start...].map(Self.describe)
            chunk.removeAll()
            queue.recycle(chunk)
        }
        #expect(received == sent)
        #expect(chunks == 3)
        // Empty: the next sender schedules a drain again.
        let schedulesAgain = queue.scheduleDrain()
        #expect(schedulesAgain)
    }

    private static func describe(_ operation: TimedOperation) -> String {
        guard case let .deregister(id) = operation.operation else { return "?" }
        return "op \(id.owner)"
    }
}
