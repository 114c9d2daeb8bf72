/// The manager's inspector (``Manager/Dependency/inspector``) as a ``DeliveryListener``: it
/// sees each block, once the delegate and the streams have, as a ``DeliveredBlock`` of its
/// last ``ManagerInspector/resultsKeptPerBlock`` results and its errors.
struct InspectorListener: DeliveryListener {
    let inspector: any ManagerInspector

    var storesResults: Bool { false }

    func receiver(for manager: Manager) -> (any DeliveryReceiver)? {
        Receiver(inspector: inspector, manager: manager, collector: DeliveredBlockCollector(limit: inspector.resultsKeptPerBlock))
    }

    private struct Receiver: DeliveryReceiver {
        let inspector: any ManagerInspector
        let manager: Manager
        var collector: DeliveredBlockCollector

        mutating func receive(_ result: consuming AnalyticsResult) {
            collector.keep(result)
        }

        mutating func receive(_ error: any Error) {
            collector.keep(error)
        }

        mutating func finish() {
            var taken = DeliveredBlockCollector(limit: 0)
            swap(&taken, &collector)  // moved out, so the ring is rotated in place, not copied
            let block = taken.block()
            if !block.isEmpty { inspector.manager(manager, didDeliver: block) }
        }
    }
}
