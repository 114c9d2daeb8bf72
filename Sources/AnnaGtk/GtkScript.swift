import CGtk

/// Drives a GTK UI from code, as a user would: for scripted sessions, demos and tests.
///
/// ```swift
/// GtkScript.emit("clicked", on: addButton)
/// GtkScript.emit("row-activated", on: list, row)
/// GtkScript.settle()          // let GTK map, unmap and redraw what changed
/// ```
public enum GtkScript {
    /// Emits `signal` on `instance` with `objects` as its parameters, running its handlers and
    /// AnnaGtk's hooks as a user's action would (`gtk_widget_activate` does the same for a
    /// button, but only after GTK's activation delay).
    public static func emit(_ signal: String, on instance: GtkWidgetPointer, _ objects: GtkWidgetPointer...) {
        let all = [instance] + objects
        var values = [GValue](repeating: GValue(), count: all.count)
        for (position, object) in all.enumerated() {
            g_value_init(&values[position], GObjectAccess.type(of: object))
            g_value_set_object(&values[position], object)
        }
        let id = g_signal_lookup(signal, GObjectAccess.type(of: instance))
        precondition(id != 0, "\(GObjectAccess.typeName(of: instance)) has no signal \(signal)")
        g_signal_emitv(values, id, 0, nil)
        for position in values.indices { g_value_unset(&values[position]) }
    }

    /// Emits `signal` on `instance` with one unsigned parameter: a list, column or grid view's
    /// `activate` with the row's `position`.
    public static func emit(_ signal: String, on instance: GtkWidgetPointer, position: UInt32) {
        var values = [GValue](repeating: GValue(), count: 2)
        g_value_init(&values[0], GObjectAccess.type(of: instance))
        g_value_set_object(&values[0], instance)
        g_value_init(&values[1], GType(7 << G_TYPE_FUNDAMENTAL_SHIFT))  // G_TYPE_UINT
        g_value_set_uint(&values[1], position)
        let id = g_signal_lookup(signal, GObjectAccess.type(of: instance))
        precondition(id != 0, "\(GObjectAccess.typeName(of: instance)) has no signal \(signal)")
        g_signal_emitv(values, id, 0, nil)
        for position in values.indices { g_value_unset(&values[position]) }
    }

    /// Runs GTK's main loop until `condition` holds, for at most `timeoutMilliseconds`;
    /// answers whether it held.
    @discardableResult
    public static func settle(until condition: () -> Bool, timeoutMilliseconds: Int) -> Bool {
        let end = g_get_monotonic_time() + timeoutMilliseconds * 1000
        while !condition() {
            guard g_get_monotonic_time() < end else { return false }
            if g_main_context_iteration(nil, 0) == 0 { g_usleep(2000) }
        }
        return true
    }

    /// Runs GTK's main loop until nothing is pending, then for `milliseconds` more.
    public static func settle(milliseconds: Int = 50) {
        let end = g_get_monotonic_time() + milliseconds * 1000
        repeat {
            while g_main_context_iteration(nil, 0) != 0 {}
            g_usleep(2000)
        } while g_get_monotonic_time() < end
    }
}
