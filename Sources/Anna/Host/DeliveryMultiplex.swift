import Logging

/// One block's receivers, on the delegate queue: hands each result and error to every
/// receiver in turn, as swift-log's `MultiplexLogHandler` hands a message to each handler,
/// and the errors none of them handles to the logger.
///
/// A class, so the receivers (which keep state for their block) are mutated in place: a
/// struct captured by the block's closure would copy its array and each boxed receiver on
/// the first mutation. Unchecked `Sendable`: made on the script queue, then used only by
/// its block on the delegate queue.
final class DeliveryMultiplex: @unchecked Sendable {
    private var receivers: [any DeliveryReceiver]
    /// The first `storing` receivers store results (``DeliveryListener/storesResults``).
    private let storing: Int
    private let handlesErrors: Bool
    /// Whether results keep the engine's text (a receiver stores it).
    private let keepsText: Bool
    private let logger: Logger
    private let block: DeliveryBlock
    private let redaction: Redaction?

    /// `receivers` is not empty; its first `storing` store results; `redaction` applies to
    /// each result before any of them sees it.
    init(receivers: [any DeliveryReceiver], storing: Int, logger: Logger, block: DeliveryBlock, redaction: Redaction? = nil) {
        self.redaction = redaction
        self.receivers = receivers
        self.storing = storing
        handlesErrors = receivers.contains { $0.handlesErrors }
        keepsText = receivers.contains { $0.storesText }
        self.logger = logger
        self.block = block
    }

    /// Decodes the results of `parts` and hands them and the errors on, in order, then ends
    /// the block for every receiver.
    func deliver(_ parts: [ResultDelivery.Part]) {
        for part in parts {
            switch part {
            case let .output(output): output.forEach(keepingText: keepsText, result: { send($0) }, error: { report($1) })
            case let .error(error): report(error)
            }
        }
        for index in receivers.indices { receivers[index].finish() }
    }

    /// Hands `result` to each receiver, counting it delivered once those that store results
    /// took it; the last receiver gets it moved in.
    private func send(_ given: consuming AnalyticsResult) {
        var result = given
        if let redaction {
            guard let kept = redaction.redact(result) else {
                block.countDelivered()  // dropped by the redaction: delivered as far as anyone waits
                return
            }
            result = kept
        }
        if storing == 0 { block.countDelivered() }
        var index = 0
        while index < receivers.count - 1 {
            do {
                try receivers[index].receive(borrowing: result)
            } catch {
                report(error)
            }
            index += 1
            if index == storing { block.countDelivered() }
        }
        do {
            try receivers[index].receive(consume result)  // moved: the optimizer copied it otherwise
        } catch {
            report(error)
        }
        if storing == receivers.count { block.countDelivered() }
    }

    /// Hands `error` to every receiver; to the logger when none handles errors.
    private func report(_ error: any Error) {
        for index in receivers.indices { receivers[index].receive(error) }
        if !handlesErrors { logger.log(level: ResultDelivery.logLevel(of: error), "\(error)") }
    }
}
