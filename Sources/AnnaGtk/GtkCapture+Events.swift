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
        if let node = unretainedNode(for: button) {
            node._withUnsafeGuaranteedRef { $0.nodeAnalyzer.recordFocusing(Self.touchUpInside, with: nil) }
        } else {
            unretainedNearestNode(from: gtk_widget_get_parent(button))?._withUnsafeGuaranteedRef { $0.nodeAnalyzer.markFocused() }
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
        if let row, let node = unretainedNode(for: row) {
            node._withUnsafeGuaranteedRef { $0.nodeAnalyzer.recordFocusing(Self.didSelect, with: nil) }
        } else if let node = unretainedNearestNode(from: list) {
            node._withUnsafeGuaranteedRef {
                $0.nodeAnalyzer.recordFocusing(Self.didSelect, with: ["index": .number(Double(position))])
            }
        }
    }

    /// A toggle's, switch's or range's value changed: its node records `ana-updated`.
    func valueChanged(_ widget: GtkWidgetPointer, keyPath: String, value: JSONValue) {
        unretainedNode(for: widget)?._withUnsafeGuaranteedRef { $0.nodeAnalyzer.update(value, for: keyPath) }
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

    /// The node of `widget` or of its nearest named ancestor, unretained (see
    /// ``unretainedNode(for:)``).
    func unretainedNearestNode(from widget: GtkWidgetPointer?) -> Unmanaged<WidgetNode>? {
        var current = widget
        while let each = current {
            if let node = unretainedNode(for: each) { return node }
            current = gtk_widget_get_parent(each)
        }
        return nil
    }
}
