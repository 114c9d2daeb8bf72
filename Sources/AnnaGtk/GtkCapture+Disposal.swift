import Anna
import CGtk

// Widgets disposed while captured: their nodes leave the tree, nothing of theirs is kept.

extension GtkCapture {
    /// Watches `widget` with a GObject weak reference, which GTK notifies when the widget is
    /// disposed (destroyed, or its last reference dropped).
    func watchDisposal(of widget: UnsafeMutableRawPointer) {
        let token = Unmanaged.passRetained(WidgetReference(self, widget)).toOpaque()
        disposalTokens[widget] = token
        g_object_weak_ref(GObjectAccess.object(widget), Self.disposed, token)
    }

    /// Stops watching `widget` (the capture is uninstalled) and releases the token.
    func stopWatchingDisposal(of widget: UnsafeMutableRawPointer) {
        guard let token = disposalTokens.removeValue(forKey: widget) else { return }
        g_object_weak_unref(GObjectAccess.object(widget), Self.disposed, token)
        Unmanaged<WidgetReference>.fromOpaque(token).release()
    }

    private static let disposed: GWeakNotify = { data, _ in
        guard let data else { return }
        let token = Unmanaged<WidgetReference>.fromOpaque(data).takeRetainedValue()
        token.capture.widgetDisposed(token.widget)
    }

    /// The widget at `key` is being disposed: its node disappears (if it was shown) and leaves.
    func widgetDisposed(_ key: UnsafeMutableRawPointer) {
        disposalTokens[key] = nil
        boundPositions[key] = nil
        if let source = pendingTexts.removeValue(forKey: key) { g_source_remove(source) }
        guard let node = removeNode(of: key) else { return }
        if node.isAppeared {
            node.isAppeared = false
            node.nodeAnalyzer.record(StandardEvent.disappeared, with: nil)
        }
        node.widgetDisposed()
    }
}
