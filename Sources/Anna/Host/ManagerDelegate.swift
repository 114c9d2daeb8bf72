/// Receives what a ``Manager`` produces, asynchronously on the manager's `delegateQueue`.
public protocol ManagerDelegate: AnyObject, Sendable {
    /// A task returned a result. Results arrive in the order their events were recorded
    /// (on a serial `delegateQueue`).
    func manager(_ manager: Manager, didSend result: AnalyticsResult)
    /// Something went wrong that the host did not handle: a module that failed to load, a
    /// task that threw, an event on an unknown node, …
    func manager(_ manager: Manager, didCatch error: any Error)
}

extension ManagerDelegate {
    /// Unless the delegate implements this method, errors go to the manager's
    /// ``Manager/Dependency/logger`` (swift-log, label `anna`): never silently nowhere.
    public func manager(_ manager: Manager, didCatch error: any Error) {
        manager.dependency.logger.log(level: ResultDelivery.logLevel(of: error), "\(error)")
    }
}
