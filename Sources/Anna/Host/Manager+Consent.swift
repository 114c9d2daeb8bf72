extension Manager {
    /// Stops tracking until ``optIn()``: events recorded from now on are dropped before they
    /// reach the module (no task runs for them, so nothing is stored, sent or delivered), and
    /// the recording (``Dependency/recordingURL``) is paused. Nodes still register and
    /// deregister, so focus paths are right again the moment the user opts in.
    ///
    /// Results of events recorded before the call are delivered as usual. The choice is not
    /// persisted: an app keeps its user's answer and calls this at launch.
    public func optOut() {
        optedOut.store(true, ordering: .sequentiallyConsistent)
        enqueue(.recording(false))
    }

    /// Tracks again after ``optOut()``: events recorded from now on reach the module, and the
    /// recording resumes (without the nodes registered meanwhile: a replay of it reports
    /// events on those nodes as on unknown nodes).
    public func optIn() {
        optedOut.store(false, ordering: .sequentiallyConsistent)
        enqueue(.recording(true))
    }

    /// Whether ``optOut()`` was called more recently than ``optIn()``.
    public var isOptedOut: Bool {
        optedOut.load(ordering: .relaxed)
    }
}
