import CoreJS

extension AnalyticsEngine {
    /// Runs the tasks after the stopped one of the stopped operation's event; returns the
    /// stops among them. Each stop moves past one task; one that does not (the same task
    /// named again) ends the resuming.
    func resumeStoppedEvent(of stopped: ModuleOperation, after task: String?) -> [AnalyticsError] {
        var stops: [AnalyticsError] = []
        var last = task
        while true {
            do {
                _ = try bridge.resume()
                return stops
            } catch {
                let running = runningTask()
                stops.append(.failure(of: stopped, ModuleBridge.javaScriptError(error), runningTask: running))
                if running == nil || running == last { return stops }
                last = running
            }
        }
    }
}
