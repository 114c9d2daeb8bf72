import Anna
import CGtk
import CoreJS
import Foundation

/// The analyzable stand-in of one named widget: its node in the focus-path tree.
///
/// GTK objects cannot conform to Swift protocols, so each named widget gets one of these,
/// kept by the capture until the widget is disposed. Its parent constitutor is the node of
/// the nearest named ancestor (or the root, for a widget with none), as GTK's tree stood
/// when the widget last appeared; analyzers ask for it from any thread, so it is kept under
/// a lock rather than read from GTK.
final class WidgetNode: Analyzable, @unchecked Sendable {
    /// The widget; `nil` once it is disposed. Read and written on GTK's thread only.
    private(set) var widget: GtkWidgetPointer?
    /// The name the node was enabled with.
    let name: String
    /// Whether the node's `ana-appeared` was recorded and not yet undone. GTK's thread only.
    var isAppeared = false
    /// The row position the node was last attached at (`nil` outside rows). GTK's thread only.
    var placedIndex: Int?
    /// The analyzer; its namespace is the widget's (see ``GtkCapture/namespace(of:)``). A
    /// constant, so a hooked emission calls it without retaining it.
    let nodeAnalyzer: Analyzer
    var analyzer: any Analyzing { nodeAnalyzer }
    private let parentLock = NSLock()
    private var parent: any FocusPathConstituting

    init(widget: GtkWidgetPointer, name: String, namespace: String, parent: any FocusPathConstituting) {
        self.widget = widget
        self.name = name
        self.parent = parent
        nodeAnalyzer = Analyzer(namespace: namespace)
        nodeAnalyzer.adopt(owner: self)
    }

    func parentConstitutor() -> (any FocusPathConstituting)? {
        parentLock.withLock { parent }
    }

    /// Points the parent lookup at `newParent` (the widget moved in GTK's tree).
    func setParent(_ newParent: any FocusPathConstituting) {
        parentLock.withLock { parent = newParent }
    }

    /// Forgets the widget (it is being disposed) and the node.
    func widgetDisposed() {
        widget = nil
        nodeAnalyzer.detach()
    }
}

/// The object at the top of every captured window's parent chain: it owns the root analyzer.
final class CaptureRoot: Analyzable, @unchecked Sendable {
    let rootAnalyzer: RootAnalyzer
    var analyzer: any Analyzing { rootAnalyzer }

    init(manager: Manager) {
        rootAnalyzer = RootAnalyzer(manager: manager)
    }

    func parentConstitutor() -> (any FocusPathConstituting)? { nil }
}
