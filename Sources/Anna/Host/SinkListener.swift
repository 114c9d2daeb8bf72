/// The manager's sink (``Manager/Dependency/outbox``) as a ``DeliveryListener``: it takes
/// every result, before the other listeners; a result it refuses is reported like any error.
struct SinkListener: DeliveryListener {
    let sink: any ResultSink

    var storesResults: Bool { true }

    func receiver(for manager: Manager) -> (any DeliveryReceiver)? {
        Receiver(sink: sink)
    }

    private struct Receiver: DeliveryReceiver {
        let sink: any ResultSink

        var storesText: Bool { true }

        func receive(_ result: consuming AnalyticsResult) throws {
            try receive(borrowing: result)
        }

        func receive(borrowing result: borrowing AnalyticsResult) throws {
            try sink.append(result, time: result.time ?? Manager.now())
        }
    }
}
