// Main-actor lookup: what an analyzer must ask an object of the main actor (its
// sub-analyzables, a redirect) is asked there: at once when the caller runs on the main
// queue, else later on it, with the events left waiting until then.
import Dispatch

extension Analyzer {
    /// Adds the sub-analyzables of a main-actor owner: now when on the main thread (where
    /// kit objects enable their analyzers), else as soon as the main actor runs.
    func addMainActorSubAnalyzables(of object: any MainActorAnalyzableObject) {
        let owner = UncheckedSendable(object)
        let subs = onMainActor { () -> [(String, SubAnalyzable?)] in
            type(of: owner.value).subAnalyzableKeys.sorted().map { ($0, owner.value.subAnalyzable(for: $0)) }
        }
        if let subs {
            for (key, sub) in subs { add(sub, for: key) }
            return
        }
        let reference = UncheckedSendable(self)
        DispatchQueue.main.async {
            Self.lock.withLock {
                let analyzer = reference.value
                guard analyzer.enabled, let object = analyzer.owner as? any MainActorAnalyzableObject else { return }
                analyzer.addMainActorSubAnalyzables(of: object)
            }
        }
    }

    /// Looks the parent up again on the main actor (a redirect there must answer), then
    /// sends the events that wait.
    func scheduleMainActorLookup() {
        guard !mainActorLookupScheduled else { return }
        mainActorLookupScheduled = true
        let reference = UncheckedSendable(self)
        DispatchQueue.main.async {
            Self.lock.withLock {
                reference.value.mainActorLookupScheduled = false
                _ = reference.value.register()
            }
        }
    }
}

/// Runs `body` on the main actor when called there (on the main queue, whichever thread
/// drains it); `nil` elsewhere.
func onMainActor<T>(_ body: @MainActor () -> T) -> T? {
    guard MainQueueMark.isCurrent else { return nil }
    return MainActor.assumeIsolated { UncheckedSendable(body()) }.value
}

/// Tells whether the caller runs on the main queue, the main actor's executor. (On Linux
/// the main actor's jobs may run on a thread that is not the process's main thread, so
/// `Thread.isMainThread` cannot tell.)
enum MainQueueMark {
    private static let key: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    static var isCurrent: Bool {
        DispatchQueue.getSpecific(key: key) == true
    }
}

/// A value handed across isolation where the analyzers' lock (or the main actor) guards it.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
