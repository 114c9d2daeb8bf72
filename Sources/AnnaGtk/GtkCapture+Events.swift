import Anna
import CGtk
import CoreJS

// What the user does to named widgets: clicks, row activations, values.

extension GtkCapture {
    /// The event a button records when clicked (as a UIKit control's, and the kit's).
    static let touchUpInside = "touch-up-inside"
    /// The event a list row records when activated.
    static let didSelect = "did-select"

    /// `clicked`: a named button records `touch-up-inside`; the nearest named widget from the
    /// button up takes the focus.
    func buttonClicked(_ button: GtkWidgetPointer) {
        if let node = node(for: button) {
            node.nodeAnalyzer.record(Self.touchUpInside, with: nil)
            node.nodeAnalyzer.markFocused()
        } else {
            nearestNode(from: gtk_widget_get_parent(button))?.nodeAnalyzer.markFocused()
        }
    }

    /// `row-activated` of a list box: the row's node records `did-select` and takes the focus;
    /// an unnamed row's nearest named ancestor records it with the row's `index`.
    func rowActivated(list: GtkWidgetPointer, row: GtkWidgetPointer, position: Int) {
        select(in: list, row: row, position: position)
    }

    /// `activate` of a list, column or grid view: as a list box's row, the row being the
    /// list item's child bound at `position`, when the view's factory reported it.
    func positionActivated(view: GtkWidgetPointer, position: Int) {
        let row = boundPositions.first { key, bound in
            bound == position && gtk_widget_is_ancestor(key.assumingMemoryBound(to: GtkWidget.self), view) != 0
        }.map { $0.key.assumingMemoryBound(to: GtkWidget.self) }
        select(in: view, row: row, position: position)
    }

    private func select(in list: GtkWidgetPointer, row: GtkWidgetPointer?, position: Int) {
        if let row, let node = node(for: row) {
            node.nodeAnalyzer.record(Self.didSelect, with: nil)
            node.nodeAnalyzer.markFocused()
        } else if let node = nearestNode(from: list) {
            node.nodeAnalyzer.record(Self.didSelect, with: ["index": .number(Double(position))])
            node.nodeAnalyzer.markFocused()
        }
    }

    /// A toggle's, switch's or range's value changed: its node records `ana-updated`.
    func valueChanged(_ widget: GtkWidgetPointer, keyPath: String, value: JSONValue) {
        node(for: widget)?.nodeAnalyzer.update(value, for: keyPath)
    }

    /// An editable's text changed: recorded at the end of the interval it started, so typing
    /// gives at most one `text` update per ``Options/textInterval``, always the last text.
    func textChanged(_ widget: GtkWidgetPointer) {
        let key = UnsafeMutableRawPointer(widget)
        guard existingNode(of: key) != nil || GObjectAccess.appName(of: widget) != nil, pendingTexts[key] == nil else { return }
        let interval = options.textInterval.components
        let milliseconds = guint(max(1, interval.seconds * 1000 + interval.attoseconds / 1_000_000_000_000_000))
        let context = Unmanaged.passRetained(WidgetReference(self, key)).toOpaque()
        pendingTexts[key] = g_timeout_add_full(
            G_PRIORITY_DEFAULT, milliseconds,
            { data in
                guard let data else { return 0 }
                let timer = Unmanaged<WidgetReference>.fromOpaque(data).takeUnretainedValue()
                timer.capture.textIntervalEnded(timer.widget)
                return 0  // once
            }, context,
            { data in if let data { Unmanaged<WidgetReference>.fromOpaque(data).release() } })
    }

    func textIntervalEnded(_ key: UnsafeMutableRawPointer) {
        pendingTexts[key] = nil
        // A widget disposed meanwhile has no node any more, and its timer was removed.
        guard let node = nodes[key], let widget = node.widget else { return }
        let text = gtk_editable_get_text(OpaquePointer(widget)).map { String(cString: $0) } ?? ""
        node.nodeAnalyzer.update(JSONValue.string(text), for: "text")
    }

    /// The node of `widget` or of its nearest named ancestor.
    func nearestNode(from widget: GtkWidgetPointer?) -> WidgetNode? {
        var current = widget
        while let each = current {
            if let node = node(for: each) { return node }
            current = gtk_widget_get_parent(each)
        }
        return nil
    }
}
