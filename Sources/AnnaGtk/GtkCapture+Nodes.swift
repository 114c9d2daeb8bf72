import Anna
import CGtk
import CoreJS

// Named widgets as nodes: where each hangs, when it appears and disappears.

extension GtkCapture {
    /// The node of `widget` when it is named, made (and enabled) the first time.
    func node(for widget: GtkWidgetPointer) -> WidgetNode? {
        unretainedNode(for: widget)?.takeUnretainedValue()
    }

    /// ``node(for:)`` without a reference: for the hooked emissions, which use the node only
    /// while GTK's thread is in the hook (`nodes` keeps it meanwhile), and whose retains of it
    /// would take the slow path (its analyzer refers to it weakly).
    func unretainedNode(for widget: GtkWidgetPointer) -> Unmanaged<WidgetNode>? {
        let key = UnsafeMutableRawPointer(widget)
        if let node = unretainedExistingNode(of: key) { return node }
        guard let name = GObjectAccess.appName(of: widget) else { return nil }
        let placement = placement(of: widget)
        let node = WidgetNode(widget: widget, name: name, namespace: Self.namespace(of: widget), parent: placement.parent)
        nodes[key] = node
        g_object_set_qdata(GObjectAccess.object(key), nodeQuark, Unmanaged.passUnretained(node).toOpaque())
        watchDisposal(of: key)
        attach(node, at: placement)
        return Unmanaged.passUnretained(node)
    }

    /// The node `widget` has, if any. Every hooked emission asks, so the node rides on the
    /// widget (GObject qdata, unretained: `nodes` keeps it, and whatever removes it from
    /// `nodes` clears the qdata) instead of being looked up by a hashed pointer.
    func existingNode(of widget: UnsafeMutableRawPointer) -> WidgetNode? {
        unretainedExistingNode(of: widget)?.takeUnretainedValue()
    }

    private func unretainedExistingNode(of widget: UnsafeMutableRawPointer) -> Unmanaged<WidgetNode>? {
        g_object_get_qdata(GObjectAccess.object(widget), nodeQuark).map { Unmanaged<WidgetNode>.fromOpaque($0) }
    }

    /// Forgets the node of `widget` (it is disposed, or the capture uninstalled).
    func removeNode(of widget: UnsafeMutableRawPointer) -> WidgetNode? {
        g_object_set_qdata(GObjectAccess.object(widget), nodeQuark, nil)
        return nodes.removeValue(forKey: widget)
    }

    /// Where a named widget hangs: under the node of its nearest named ancestor (the root when
    /// it has none), with the position of the list row it sits in, if any, between them.
    struct Placement {
        var parent: any FocusPathConstituting
        var parentNode: WidgetNode?
        var index: Int?
    }

    func placement(of widget: GtkWidgetPointer) -> Placement {
        var index = rowPosition(of: widget)
        var current = widget
        while let up = gtk_widget_get_parent(current) {
            if let parentNode = node(for: up) {
                return Placement(parent: parentNode, parentNode: parentNode, index: index)
            }
            if index == nil { index = rowPosition(of: up) }
            current = up
        }
        return Placement(parent: root, parentNode: nil, index: index)
    }

    /// The position of the list row `widget` is, or `nil` when it is not a row.
    func rowPosition(of widget: GtkWidgetPointer) -> Int? {
        if GObjectAccess.isA(widget, gtk_list_box_row_get_type()) {
            return Int(gtk_list_box_row_get_index(GObjectAccess.cast(widget, to: GtkListBoxRow.self)))
        }
        if GObjectAccess.isA(widget, gtk_flow_box_child_get_type()) {
            return Int(gtk_flow_box_child_get_index(GObjectAccess.cast(widget, to: GtkFlowBoxChild.self)))
        }
        return boundPositions[UnsafeMutableRawPointer(widget)]
    }

    /// Enables `node` where `placement` says: a row's widget as its parent's sub-analyzer at
    /// the row's index; any other under its parent by the parent lookup, which lets a page
    /// shown after a click hang under the focused widget.
    func attach(_ node: WidgetNode, at placement: Placement) {
        node.setParent(placement.parent)
        if let index = placement.index, let parentNode = placement.parentNode {
            parentNode.analyzer.setSubAnalyzer(node.analyzer, for: node.name, index: index)
        } else {
            node.nodeAnalyzer.enable(naming: node.name)
        }
        node.placedIndex = placement.index
    }

    /// `map`: the widget's named ancestors that have not appeared yet appear first, outermost
    /// first (GTK maps children inside the parent's handler, so their hooks run first).
    func widgetMapped(_ widget: GtkWidgetPointer) {
        var named: [GtkWidgetPointer] = []
        var current: GtkWidgetPointer? = widget
        while let each = current {
            if let node = existingNode(of: each) {
                if node.isAppeared { break }  // and so are its ancestors
                named.append(each)
            } else if GObjectAccess.appName(of: each) != nil {
                named.append(each)
            }
            current = gtk_widget_get_parent(each)
        }
        for each in named.reversed() { appear(each) }
    }

    func appear(_ widget: GtkWidgetPointer) {
        // A node made just now was placed as GTK's tree stands; an older one may have moved.
        let isNew = existingNode(of: widget) == nil
        guard let node = node(for: widget), !node.isAppeared else { return }
        if !isNew {
            let placement = placement(of: widget)
            if placement.index != node.placedIndex || placement.parent !== node.parentConstitutor() {
                attach(node, at: placement)
            }
        }
        node.isAppeared = true
        node.nodeAnalyzer.record(StandardEvent.appeared, with: nil)
        if screenshots != nil, isScreen(widget) { screenAppeared(widget, node: node) }
    }

    /// `unmap`: GTK unmaps children first, so each named one disappears before its parent.
    func widgetUnmapped(_ widget: GtkWidgetPointer) {
        if let screenshots, screenshots.isWaiting { screenshots.windowUnmapped(widget) }
        guard let node = existingNode(of: widget), node.isAppeared else { return }
        node.isAppeared = false
        node.nodeAnalyzer.record(StandardEvent.disappeared, with: nil)
    }

    /// A list item's factory bound it (its child shows the item at its position now). A child
    /// still on screen that shows another row now leaves the old row's node and appears in the
    /// new one's, as a reused cell does.
    func listItemBound(_ item: UnsafeMutableRawPointer) {
        guard GObjectAccess.isA(item, gtk_list_item_get_type()) else { return }
        let listItem = OpaquePointer(item)
        let position = Int(gtk_list_item_get_position(listItem))
        guard let child = gtk_list_item_get_child(listItem) else { return }
        let key = UnsafeMutableRawPointer(child)
        guard boundPositions[key] != position else { return }
        boundPositions[key] = position
        // The named widgets in the child that are on screen, outermost first.
        let shown = nodes.values.compactMap { node -> (node: WidgetNode, widget: GtkWidgetPointer, depth: Int)? in
            guard node.isAppeared, let widget = node.widget,
                widget == child || gtk_widget_is_ancestor(widget, child) != 0
            else { return nil }
            var depth = 0
            var up = gtk_widget_get_parent(widget)
            while let each = up, each != child {
                depth += 1
                up = gtk_widget_get_parent(each)
            }
            return (node, widget, depth)
        }.sorted { $0.depth < $1.depth }
        for entry in shown.reversed() { widgetUnmapped(entry.widget) }
        for entry in shown { appear(entry.widget) }
    }
}
