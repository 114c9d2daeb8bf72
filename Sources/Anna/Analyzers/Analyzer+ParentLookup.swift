// Parent lookup: which analyzer's node an analyzer that was not added as a sub-analyzer
// hangs under (up its owner's chain of parent constitutors, through redirects, or below
// the focused analyzer), and the registered lineage that the focus rule checks.

extension Analyzer {
    /// The nearest enabled analyzer up the owner's chain, or the focused analyzer standing
    /// below it (when focus came before this analyzer was enabled).
    func parentByLookingUp() -> Analyzer? {
        var visited = 0
        // `asker` is the object whose parent constitutor led to `current`: a redirect may
        // answer differently for different askers (a tab container for its own tabs).
        var asker: (any FocusPathConstituting)? = owner
        var current = owner?.parentConstitutor()
        var found: Analyzer?
        while let object = current, let another = asker, visited < 10_000 {
            visited += 1
            switch redirection(at: object, for: another) {
            case .waitForMainActor:
                scheduleMainActorLookup()
                return nil
            case let .to(redirected) where redirected !== object:
                current = redirected
                continue
            case .to, .none:
                break
            }
            if let analyzer = (object as? any Analyzable)?.analyzer as? Analyzer, analyzer !== self, analyzer.enabled {
                found = analyzer
                break
            }
            asker = object
            current = object.parentConstitutor()
        }
        guard let found, found.register(), let root = found.rootAnalyzer,
            let focus = root.focusedAnalyzer, root.focusSequence < enabledSequence,
            focus !== self, focus.liveRegistration != nil, focus.isDescendant(of: found), !focus.isDescendant(of: self)
        else { return found }
        return focus
    }

    /// Whether `ancestor` is this analyzer or above it in the registered tree.
    func isDescendant(of ancestor: Analyzer) -> Bool {
        registeredLineage.contains { $0 === ancestor }
    }

    /// The root above this analyzer in the registered tree (itself for the root; `nil` when
    /// not registered).
    var rootAnalyzer: RootAnalyzer? {
        if let root = self as? RootAnalyzer { return root }
        return liveRegistration?.root?.takeUnretainedValue()
    }

    /// This analyzer and those above it in the registered tree, nearest first (just this
    /// one when it is not registered). A live registration means every ancestor's is live
    /// too, so the parent links can be followed without checking each.
    private var registeredLineage: UnfoldSequence<Analyzer, (Analyzer?, Bool)> {
        let isRegistered = liveRegistration != nil
        return sequence(first: self) { analyzer in isRegistered ? analyzer.parentAnalyzer : nil }
    }

    /// What a redirecting object answers for `another`, asked on the main actor when the
    /// object belongs to it.
    private func redirection(at object: any FocusPathConstituting, for another: any FocusPathConstituting) -> Redirection {
        if let redirecting = object as? any FocusPathConstitutionRedirecting {
            return redirecting.redirectedConstitutor(for: another).map(Redirection.to) ?? .none
        }
        guard let redirecting = object as? any MainActorFocusPathConstitutionRedirecting else { return .none }
        let question = UncheckedSendable((redirecting, another))
        guard let answer = onMainActor({ question.value.0.redirectedConstitutor(for: question.value.1) }) else {
            return .waitForMainActor
        }
        return answer.map(Redirection.to) ?? .none
    }
}

/// What a redirecting object answered during a parent lookup.
private enum Redirection {
    /// Continue at this object.
    case to(any FocusPathConstituting)
    /// No redirection.
    case none
    /// The object belongs to the main actor and the lookup runs elsewhere: ask it there.
    case waitForMainActor
}
