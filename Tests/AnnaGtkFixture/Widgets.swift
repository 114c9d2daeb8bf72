import AnnaGtk
import CGtk

// Small builders over GTK's C API, so the scenarios read as the UI they make.

/// A named widget: `named(gtk_button_new_with_label("Cart"), "cart")`.
func named(_ widget: GtkWidgetPointer?, _ name: String) -> GtkWidgetPointer {
    guard let widget else { fatalError("GTK made no widget for \(name)") }
    gtk_widget_set_name(widget, name)
    return widget
}

func unnamed(_ widget: GtkWidgetPointer?) -> GtkWidgetPointer {
    guard let widget else { fatalError("GTK made no widget") }
    return widget
}

func cast<Instance>(_ widget: GtkWidgetPointer, _: Instance.Type) -> UnsafeMutablePointer<Instance> {
    UnsafeMutableRawPointer(widget).assumingMemoryBound(to: Instance.self)
}

func box(_ children: GtkWidgetPointer...) -> GtkWidgetPointer {
    let box = unnamed(gtk_box_new(GTK_ORIENTATION_VERTICAL, 0))
    for child in children { gtk_box_append(cast(box, GtkBox.self), child) }
    return box
}

func makeWindow(_ name: String?, child: GtkWidgetPointer) -> GtkWidgetPointer {
    let window = unnamed(gtk_window_new())
    if let name { gtk_widget_set_name(window, name) }
    gtk_window_set_child(cast(window, GtkWindow.self), child)
    return window
}

/// A list box whose rows are each named `rowName` and hold a label named `labelName`.
func listBox(rows: [String], rowName: String?, labelName: String?) -> GtkWidgetPointer {
    let list = unnamed(gtk_list_box_new())
    for text in rows {
        let row = unnamed(gtk_list_box_row_new())
        if let rowName { gtk_widget_set_name(row, rowName) }
        let label = unnamed(gtk_label_new(text))
        if let labelName { gtk_widget_set_name(label, labelName) }
        gtk_list_box_row_set_child(cast(row, GtkListBoxRow.self), label)
        gtk_list_box_append(OpaquePointer(list), row)
    }
    return list
}
