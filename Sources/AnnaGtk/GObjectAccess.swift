import CGtk

#if canImport(Glibc)
    import Glibc
#endif

// What Swift cannot say to GObject directly: its cast and type-check macros, and the
// names a widget answers to.

/// A widget as GTK hands it over.
public typealias GtkWidgetPointer = UnsafeMutablePointer<GtkWidget>

enum GObjectAccess {
    /// `G_TYPE_CHECK_INSTANCE_TYPE(object, type)`.
    static func isA(_ object: UnsafeMutableRawPointer, _ type: GType) -> Bool {
        g_type_check_instance_is_a(object.assumingMemoryBound(to: GTypeInstance.self), type) != 0
    }

    /// `G_OBJECT_TYPE(object)`.
    static func type(of object: UnsafeMutableRawPointer) -> GType {
        object.assumingMemoryBound(to: GTypeInstance.self).pointee.g_class.pointee.g_type
    }

    /// `G_OBJECT_TYPE_NAME(object)`.
    static func typeName(of object: UnsafeMutableRawPointer) -> String {
        g_type_name(type(of: object)).map { String(cString: $0) } ?? "GObject"
    }

    static func object(_ pointer: UnsafeMutableRawPointer) -> UnsafeMutablePointer<GObject> {
        pointer.assumingMemoryBound(to: GObject.self)
    }

    /// `GTK_BUTTON(widget)` and the like, for the classes whose instance struct is public.
    static func cast<Instance>(_ widget: GtkWidgetPointer, to _: Instance.Type) -> UnsafeMutablePointer<Instance> {
        UnsafeMutableRawPointer(widget).assumingMemoryBound(to: Instance.self)
    }

    /// The widget of the `index`th value of a signal's parameters, when it is one.
    static func widget(in values: UnsafePointer<GValue>?, at index: Int) -> GtkWidgetPointer? {
        guard let values, let object = g_value_get_object(values + index) else { return nil }
        guard isA(object, gtk_widget_get_type()) else { return nil }
        return object.assumingMemoryBound(to: GtkWidget.self)
    }

    /// The name the app gave `widget`: its widget name (`gtk_widget_set_name`, `name` in a
    /// `.ui` file), else its id in a `.ui` file; `nil` when it has neither (GTK answers the
    /// type name for an unnamed widget, which does not count). Every hooked emission asks, so
    /// the C strings are compared before any Swift string is made.
    static func appName(of widget: GtkWidgetPointer) -> String? {
        if let name = gtk_widget_get_name(widget), name.pointee != 0 {
            // GTK answers an unnamed widget with its type name: that very pointer, usually.
            let typeName = g_type_name(type(of: widget))
            if name == typeName || (typeName.map { strcmp(name, $0) == 0 } ?? false) {
                // unnamed
            } else {
                return String(cString: name)
            }
        }
        // Every GtkWidget is a GtkBuildable.
        guard let id = gtk_buildable_get_buildable_id(OpaquePointer(widget)),
            id.pointee != 0, strncmp(id, "___", 3) != 0  // GtkBuilder names objects without an id `___object_N___`
        else { return nil }
        return String(cString: id)
    }
}
