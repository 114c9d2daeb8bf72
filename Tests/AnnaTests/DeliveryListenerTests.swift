import AnnaTestSupport
import CoreJS
import Foundation
import Logging
import Testing

@testable import Anna

/// The one road out of a manager: every listener behind ``DeliveryListener``, the logger
/// taking the errors none of them handles.
@Suite("Delivery listeners")
struct DeliveryListenerTests {
    /// A listener that writes down what it receives, in order.
    final class Recorder: DeliveryListener {
        let seen = Locked<[String]>([])
        let storesResults: Bool
        /// The result value a storing recorder refuses.
        let refusing: Double?

        init(storing: Bool = false, refusing: Double? = nil) {
            storesResults = storing
            self.refusing = refusing
        }

        func receiver(for manager: Manager) -> (any DeliveryReceiver)? { Receiver(recorder: self) }

        struct Refused: Error, CustomStringConvertible {
            let value: Double
            var description: String { "refused \(Int(value))" }
        }

        struct Receiver: DeliveryReceiver {
            let recorder: Recorder

            func receive(_ result: consuming AnalyticsResult) throws {
                let value = result.value.numberValue ?? -1
                if value == recorder.refusing { throw Refused(value: value) }
                recorder.seen.withLock { $0.append("result \(Int(value))") }
            }

            func receive(_ error: any Error) {
                recorder.seen.withLock { $0.append("error \(error)") }
            }

            func finish() {
                recorder.seen.withLock { $0.append("finish") }
            }
        }
    }

    /// Results 1 and 2 (undecoded), an error, result 3.
    static let parts: [ResultDelivery.Part] = [
        .output(.results(PendingResults(text: Array("[1,2]".utf8), index: [0, -1, 1, -1], metas: []), last: 1)),
        .error(AnalyticsError.operationFailed(operation: "testing", .typeMismatch("broken"))),
        .output(.results(PendingResults(text: Array("[3]".utf8), index: [0, -1], metas: []), last: 2)),
    ]

    static let errorText = "error testing failed: type mismatch: broken"

    static func deliver(_ parts: [ResultDelivery.Part], through delivery: ResultDelivery) {
        delivery.deliver(parts)
        delivery.delegateQueue.sync {}  // the block ran
    }

    @Test("a registered listener sees the results and errors in order; an error no listener handles is logged once")
    func listenerSeesEverythingInOrder() throws {
        let log = CapturedLog()
        let recorder = Recorder()
        let manager = Manager(moduleURL: URL(fileURLWithPath: "/nonexistent"))
        let delivery = ResultDelivery(logger: log.logger, adding: [recorder])
        delivery.attach(to: manager)
        Self.deliver(Self.parts, through: delivery)
        #expect(recorder.seen.withLock { $0 } == ["result 1", "result 2", Self.errorText, "result 3", "finish"])
        #expect(log.messages(at: .error) == ["testing failed: type mismatch: broken"])
    }

    @Test("an error a listener handles (the delegate) is not logged; the other listeners still see it")
    func handledErrorIsNotLogged() throws {
        let log = CapturedLog()
        let recorder = Recorder()
        let manager = Manager(moduleURL: URL(fileURLWithPath: "/nonexistent"))
        let delivery = ResultDelivery(logger: log.logger, adding: [recorder])
        delivery.attach(to: manager)
        let delegate = CollectingDelegate(onError: { _ in })
        delivery.delegate = delegate
        Self.deliver(Self.parts, through: delivery)
        #expect(recorder.seen.withLock { $0 } == ["result 1", "result 2", Self.errorText, "result 3", "finish"])
        #expect(delegate.results.map(\.value) == [1, 2, 3])
        #expect(delegate.errors.map { "\($0)" } == ["testing failed: type mismatch: broken"])
        #expect(log.messages(at: .error).isEmpty)
    }

    @Test("with no listener taking part, the errors go to the logger at once, each once")
    func nobodyListening() throws {
        let log = CapturedLog()
        let manager = Manager(moduleURL: URL(fileURLWithPath: "/nonexistent"))
        let delivery = ResultDelivery(logger: log.logger)
        delivery.attach(to: manager)
        delivery.deliver(Self.parts)  // logged on this thread: nothing goes to the delegate queue
        #expect(log.messages(at: .error) == ["testing failed: type mismatch: broken"])
    }

    @Test("a result a storing listener refuses: its error reaches every listener before the later ones see the result")
    func refusalComesFirst() throws {
        let log = CapturedLog()
        let sink = Recorder(storing: true, refusing: 2)
        let recorder = Recorder()
        let manager = Manager(moduleURL: URL(fileURLWithPath: "/nonexistent"))
        // Registered after the other, the storing listener still takes each result first.
        let delivery = ResultDelivery(logger: log.logger, adding: [recorder, sink])
        delivery.attach(to: manager)
        Self.deliver([Self.parts[0]], through: delivery)
        #expect(sink.seen.withLock { $0 } == ["result 1", "error refused 2", "finish"])
        #expect(recorder.seen.withLock { $0 } == ["result 1", "error refused 2", "result 2", "finish"])
        #expect(log.messages(at: .error) == ["refused 2"])
    }
}
