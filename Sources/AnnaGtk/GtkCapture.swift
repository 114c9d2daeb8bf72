import Anna
import CGtk
import CoreJS

/// Automatic capture for a GTK 4 app: named widgets become nodes of the focus-path tree, and
/// what the user does to them becomes events, with no per-widget code.
///
/// ```swift
/// gtk_init()
/// let manager = Manager(moduleURL: moduleURL)
/// let capture = GtkCapture.install(manager: manager)   // on GTK's thread, once
/// // … build windows; give the widgets that matter a name (gtk_widget_set_name or a .ui id)
/// capture.uninstall()                                  // removes every hook
/// ```
///
/// - A widget with a name set by the app is a node named by it; unnamed widgets are
///   transparent. A named widget hangs under its nearest named ancestor, a named window under
///   the root. Inside a row of a list (`GtkListBox`, or a list, column or grid view whose
///   factory is a `GtkSignalListItemFactory`) a named widget's `index` is the row's position.
/// - The node's namespace (which task file it loads) is the widget's GType name, unless set
///   with ``setNamespace(_:for:)``.
/// - Events: `ana-appeared` / `ana-disappeared` when a named widget is mapped / unmapped
///   (parents first on the way in, children first on the way out), `touch-up-inside` on a
///   named button's `clicked`, `did-select` on a list row's activation, `ana-updated` for a
///   toggle's or switch's `active`, a range's `value` and an entry's `text` (at most one per
///   ``Options/textInterval``).
/// - A click or a row activation marks the node focused, so a named page or window shown
///   because of it hangs under it.
///
/// Every call, and every hook, runs on GTK's main thread; the manager takes the events from
/// there to its own queue.
public final class GtkCapture: @unchecked Sendable {
    /// How the capture behaves.
    public struct Options: Sendable {
        /// The shortest time between two `text` updates of one entry: typing records the text
        /// at most once per interval, and always its last value. 500 ms.
        public var textInterval: Duration = .milliseconds(500)
        /// Pictures of the screens shown: a PNG of the window each time a named window or
        /// page (of a stack, notebook or view stack) appears. Off (`nil`) by default.
        public var screenshots: Screenshots?

        /// The default options.
        public init() {}
    }

    /// The manager the events go to.
    public let manager: Manager
    /// The options given to ``install(manager:options:)``.
    public let options: Options
    let root: CaptureRoot
    /// Every node, by widget (each also rides on its widget: see `existingNode(of:)`).
    var nodes: [UnsafeMutableRawPointer: WidgetNode] = [:]
    /// The qdata key of this capture's node on a widget.
    let nodeQuark: GQuark
    /// The row position of each list item's child, as its factory last bound it.
    var boundPositions: [UnsafeMutableRawPointer: Int] = [:]
    /// Entries whose text changed and waits for its interval, with the timer's source ID.
    var pendingTexts: [UnsafeMutableRawPointer: guint] = [:]
    /// The weak-reference token of each watched widget (see `GtkCapture+Disposal.swift`).
    var disposalTokens: [UnsafeMutableRawPointer: UnsafeMutableRawPointer] = [:]
    /// Takes the pictures ``Options/screenshots`` asks for; `nil` without.
    let screenshots: ScreenshotWriter?
    /// libadwaita's `AdwViewStack` once the app made one (0 until then: looked up again).
    var viewStackType: GType = 0
    private var hooks: [(signal: guint, id: gulong)] = []
    private var classes: [gpointer] = []
    private(set) var isInstalled = false

    /// The root analyzer of the captured tree (`__root__`).
    public var rootAnalyzer: RootAnalyzer { root.rootAnalyzer }

    private init(manager: Manager, options: Options) {
        self.manager = manager
        self.options = options
        root = CaptureRoot(manager: manager)
        // One key per capture (quarks live as long as the process; an app installs one capture).
        nodeQuark = g_quark_from_string("anna-capture-node-\(UInt(bitPattern: Unmanaged.passUnretained(root).toOpaque()))")
        screenshots = options.screenshots.map(ScreenshotWriter.init)
    }

    /// Starts capturing: adds GTK emission hooks for the signals above. Call once, after
    /// `gtk_init()`, on GTK's main thread; widgets already shown appear when they are next
    /// mapped.
    public static func install(manager: Manager, options: Options = Options()) -> GtkCapture {
        let capture = GtkCapture(manager: manager, options: options)
        capture.addHooks()
        return capture
    }

    /// Removes every hook and forgets every node (their nodes leave the tree); widgets keep
    /// working as before. Calling it twice does nothing. Until it is called, GTK's hooks hold
    /// the capture: it keeps capturing even when the app drops its handle.
    public func uninstall() {
        guard isInstalled else { return }
        isInstalled = false
        for hook in hooks { g_signal_remove_emission_hook(hook.signal, hook.id) }
        hooks.removeAll()
        for source in pendingTexts.values { g_source_remove(source) }
        pendingTexts.removeAll()
        for (widget, node) in nodes {
            stopWatchingDisposal(of: widget)
            g_object_set_qdata(GObjectAccess.object(widget), nodeQuark, nil)
            node.widgetDisposed()
        }
        nodes.removeAll()
        boundPositions.removeAll()
        for gclass in classes { g_type_class_unref(gclass) }
        classes.removeAll()
        screenshots?.close()
    }

    /// The analyzer of a named widget (made if it has none yet), to record values the capture
    /// cannot see (`analyzer.update(product.id, for: "product-id")`); `nil` for an unnamed one.
    public func analyzer(for widget: GtkWidgetPointer) -> (any Analyzing)? {
        node(for: widget)?.analyzer
    }

    /// Sets the namespace of `widget`'s node (the task file it loads, `task/<namespace>.js`);
    /// call before the widget is first shown. Without it, the namespace is the widget's GType
    /// name (`GtkButton`, or the app's subclass).
    public static func setNamespace(_ namespace: String, for widget: GtkWidgetPointer) {
        let copy = g_strdup(namespace)
        g_object_set_data_full(GObjectAccess.object(widget), namespaceKey, copy) { g_free($0) }
    }

    /// The object-data key ``setNamespace(_:for:)`` uses; a C app sets a `g_strdup`ed string there.
    public static let namespaceKey = "anna-namespace"

    /// The namespace of `widget`'s node.
    static func namespace(of widget: GtkWidgetPointer) -> String {
        if let data = g_object_get_data(GObjectAccess.object(widget), namespaceKey) {
            return String(cString: data.assumingMemoryBound(to: CChar.self))
        }
        return GObjectAccess.typeName(of: widget)
    }

    // MARK: - Hooks

    private func addHooks() {
        isInstalled = true
        let types: [GType] = [
            gtk_widget_get_type(), gtk_button_get_type(), gtk_list_box_get_type(), gtk_list_view_get_type(),
            gtk_column_view_get_type(), gtk_grid_view_get_type(), gtk_signal_list_item_factory_get_type(),
            gtk_toggle_button_get_type(), gtk_check_button_get_type(), gtk_switch_get_type(), gtk_range_get_type(),
        ]
        // A class's signals exist once the class does.
        for type in types { classes.append(g_type_class_ref(type)) }
        // Interfaces' signals exist once the interface's default vtable does.
        let editable = g_type_default_interface_ref(gtk_editable_get_type())
        for (name, type, kind) in [
            ("map", gtk_widget_get_type(), HookKind.map), ("unmap", gtk_widget_get_type(), .unmap),
            ("clicked", gtk_button_get_type(), .clicked), ("row-activated", gtk_list_box_get_type(), .rowActivated),
            ("activate", gtk_list_view_get_type(), .positionActivated),
            ("activate", gtk_column_view_get_type(), .positionActivated),
            ("activate", gtk_grid_view_get_type(), .positionActivated),
            ("bind", gtk_signal_list_item_factory_get_type(), .bind),
            ("toggled", gtk_toggle_button_get_type(), .toggled), ("toggled", gtk_check_button_get_type(), .toggled),
            ("state-set", gtk_switch_get_type(), .stateSet), ("value-changed", gtk_range_get_type(), .valueChanged),
            ("changed", gtk_editable_get_type(), .textChanged),
        ] as [(String, GType, HookKind)] {
            let signal = g_signal_lookup(name, type)
            precondition(signal != 0, "GTK has no \(name) signal on \(String(cString: g_type_name(type)))")
            let context = Unmanaged.passRetained(HookReference(self, kind)).toOpaque()
            let id = g_signal_add_emission_hook(signal, 0, Self.hook, context) { data in
                if let data { Unmanaged<HookReference>.fromOpaque(data).release() }
            }
            hooks.append((signal, id))
        }
        g_type_default_interface_unref(editable)
    }

    /// Every hook's entry point: hands the emission to the capture it was added for.
    private static let hook: GSignalEmissionHook = { _, count, values, data in
        guard let data else { return 1 }
        // GTK holds the reference until the hook is removed: used without retaining it.
        Unmanaged<HookReference>.fromOpaque(data)._withUnsafeGuaranteedRef { context in
            context.capture.handle(context.kind, values: values, count: Int(count))
        }
        return 1  // keep the hook
    }

    private func handle(_ kind: HookKind, values: UnsafePointer<GValue>?, count: Int) {
        guard isInstalled, let values, count > 0 else { return }
        if kind == .bind {
            guard count > 1, let item = g_value_get_object(values + 1) else { return }
            listItemBound(item)
            return
        }
        guard let widget = GObjectAccess.widget(in: values, at: 0) else { return }
        switch kind {
        case .map: widgetMapped(widget)
        case .unmap: widgetUnmapped(widget)
        case .clicked: buttonClicked(widget)
        case .rowActivated:
            guard count > 1, let row = GObjectAccess.widget(in: values, at: 1) else { return }
            rowActivated(list: widget, row: row, position: Int(gtk_list_box_row_get_index(GObjectAccess.cast(row, to: GtkListBoxRow.self))))
        case .positionActivated:
            guard count > 1 else { return }
            positionActivated(view: widget, position: Int(g_value_get_uint(values + 1)))
        case .toggled, .stateSet:
            let active: Bool
            if kind == .stateSet, count > 1 {
                active = g_value_get_boolean(values + 1) != 0
            } else if GObjectAccess.isA(widget, gtk_check_button_get_type()) {
                active = gtk_check_button_get_active(GObjectAccess.cast(widget, to: GtkCheckButton.self)) != 0
            } else {
                active = gtk_toggle_button_get_active(GObjectAccess.cast(widget, to: GtkToggleButton.self)) != 0
            }
            valueChanged(widget, keyPath: "active", value: .bool(active))
        case .valueChanged:
            valueChanged(widget, keyPath: "value", value: .number(gtk_range_get_value(GObjectAccess.cast(widget, to: GtkRange.self))))
        case .textChanged: textChanged(widget)
        case .bind: break
        }
    }
}

/// Which signal a hook was added for.
enum HookKind {
    case map, unmap, clicked, rowActivated, positionActivated, bind, toggled, stateSet, valueChanged, textChanged
}

/// What a GTK callback's user data points at: the capture, held strongly (GTK holds the
/// reference until the hook, timer or weak reference is removed, which ``GtkCapture/uninstall()``
/// does; so the capture lives until then), and what the callback is about. Not generic, and
/// nothing weak: a hooked emission pays no metadata lookup and no side-table reference count.
class CaptureReference {
    let capture: GtkCapture

    init(_ capture: GtkCapture) {
        self.capture = capture
    }
}

/// A hook's user data: the signal it was added for.
final class HookReference: CaptureReference {
    let kind: HookKind

    init(_ capture: GtkCapture, _ kind: HookKind) {
        self.kind = kind
        super.init(capture)
    }
}

/// A timer's or weak reference's user data: the widget it is about.
final class WidgetReference: CaptureReference {
    let widget: UnsafeMutableRawPointer

    init(_ capture: GtkCapture, _ widget: UnsafeMutableRawPointer) {
        self.widget = widget
        super.init(capture)
    }
}
