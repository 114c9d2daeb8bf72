import CGtk

/// A window drawn into a PNG in-process, as GTK draws it: the widget's paintable snapshotted
/// and rendered by the window's own renderer (no screen grab, so it works on any backend,
/// Broadway and Xvfb included).
struct WindowPicture {
    var png: [UInt8]
    var width: Int
    var height: Int

    /// Why a window could not be drawn.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Draws `native` (a window or popover) as it stands now.
    /// - Throws: ``Failure`` when the window has no size or renderer, or GTK encodes no PNG.
    init(of native: GtkWidgetPointer) throws {
        let width = gtk_widget_get_width(native)
        let height = gtk_widget_get_height(native)
        guard width > 0, height > 0 else { throw Failure(description: "the window has no size yet") }
        guard let renderer = gtk_native_get_renderer(OpaquePointer(native)) else {
            throw Failure(description: "the window has no renderer (it is not realized)")
        }
        guard let paintable = gtk_widget_paintable_new(native) else {
            throw Failure(description: "GTK made no paintable of the window")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(paintable)) }
        let snapshot = gtk_snapshot_new()
        gdk_paintable_snapshot(paintable, snapshot, Double(width), Double(height))
        guard let node = gtk_snapshot_free_to_node(snapshot) else {
            throw Failure(description: "the window drew nothing")
        }
        defer { gsk_render_node_unref(node) }
        guard let texture = gsk_renderer_render_texture(renderer, node, nil) else {
            throw Failure(description: "the renderer made no texture")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(texture)) }
        guard let bytes = gdk_texture_save_to_png_bytes(texture) else {
            throw Failure(description: "GTK encoded no PNG")
        }
        defer { g_bytes_unref(bytes) }
        var size: gsize = 0
        guard let data = g_bytes_get_data(bytes, &size), size > 0 else { throw Failure(description: "GTK encoded an empty PNG") }
        png = Array(UnsafeRawBufferPointer(start: data, count: Int(size)))
        self.width = Int(gdk_texture_get_width(texture))
        self.height = Int(gdk_texture_get_height(texture))
    }
}
