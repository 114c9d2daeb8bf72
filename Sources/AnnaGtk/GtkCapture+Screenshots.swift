import Anna
import CGtk
import Foundation

// Pictures of the screens a session showed: a PNG of the window each time a named page or
// window appears, taken once GTK has painted it.

extension GtkCapture {
    /// Where and how many pictures ``Options/screenshots`` keeps.
    public struct Screenshots: Sendable {
        /// The folder: PNG files and their index (see `ScreenshotIndex`); made if missing,
        /// its index replaced. Beside a recording, `ScreenshotIndex.folder(besideRecording:)`
        /// is where `anna report` looks.
        public var folder: URL
        /// The most pictures taken; later appearances have none (said once). 200.
        public var maxCount = 200
        /// The most bytes of PNG written; a picture that would pass it is not written (said
        /// once). 50 MB.
        public var maxBytes = 50_000_000
        /// Hears each problem once: a folder that cannot be written, a window GTK cannot draw,
        /// a limit reached. Standard error by default.
        public var onProblem: @Sendable (String) -> Void = { message in
            FileHandle.standardError.write(Data("AnnaGtk: \(message)\n".utf8))
        }

        /// Pictures into `folder`, with the default limits.
        public init(folder: URL) {
            self.folder = folder
        }
    }

    /// How many windows wait for their next paint to be pictured (a script that wants every
    /// screen pictured before it goes on waits for 0: `GtkScript.settle(until:)`).
    public var pendingScreenshots: Int { screenshots?.waitingCount ?? 0 }

    /// Whether `widget`'s appearance is a screen's: a window's (or popover's), or a page's of
    /// a `GtkStack` (a `GtkNotebook`'s pages sit in one) or of libadwaita's `AdwViewStack`.
    func isScreen(_ widget: GtkWidgetPointer) -> Bool {
        if GObjectAccess.isA(widget, gtk_native_get_type()) { return true }
        guard let parent = gtk_widget_get_parent(widget) else { return false }
        if GObjectAccess.isA(parent, gtk_stack_get_type()) { return true }
        // libadwaita may be loaded after the capture: its type exists once a view stack does.
        if viewStackType == 0 { viewStackType = g_type_from_name("AdwViewStack") }
        return viewStackType != 0 && GObjectAccess.isA(parent, viewStackType)
    }

    /// `node` (of `widget`) appeared: a picture of its window is taken after GTK next paints it.
    func screenAppeared(_ widget: GtkWidgetPointer, node: WidgetNode) {
        guard let writer = screenshots, let id = node.nodeAnalyzer.registeredNodeID,
            let native = gtk_widget_get_native(widget)
        else { return }
        let window = UnsafeMutableRawPointer(native).assumingMemoryBound(to: GtkWidget.self)
        writer.request(ScreenshotWriter.Request(node: id, appearance: writer.countAppearance(of: id)), of: window)
    }
}

/// Takes and files the pictures: one per window per painted frame, shared by every
/// appearance it shows, within the count and byte limits. GTK's thread only.
final class ScreenshotWriter {
    struct Request {
        var node: NodeID
        var appearance: Int
    }

    /// A window's requests, waiting for its frame clock's `after-paint`.
    private struct Waiting {
        var clock: UnsafeMutableRawPointer
        var handler: gulong
        var requests: [Request]
    }

    private let settings: GtkCapture.Screenshots
    private var index: FileHandle?
    private var appearances: [NodeID: Int] = [:]
    /// The requests waiting for each window's next paint, with the paint handler's ID.
    private var pending: [UnsafeMutableRawPointer: Waiting] = [:]
    private(set) var taken = 0
    private(set) var bytes = 0
    private var said: Set<String> = []

    /// Makes the folder and an empty index; a folder that cannot be made is said, and no
    /// picture is taken.
    init(settings: GtkCapture.Screenshots) {
        self.settings = settings
        let indexURL = settings.folder.appendingPathComponent(ScreenshotIndex.fileName)
        do {
            try FileManager.default.createDirectory(at: settings.folder, withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: indexURL.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown)
            }
            index = try FileHandle(forWritingTo: indexURL)
        } catch {
            tell("cannot write screenshots to \(settings.folder.path): \(error.localizedDescription); no screenshot is taken")
        }
    }

    /// Counts an appearance of `node` and answers which one it is (from 1), as `anna report`
    /// counts the node's `appear` lines.
    func countAppearance(of node: NodeID) -> Int {
        appearances[node, default: 0] += 1
        return appearances[node] ?? 1
    }

    /// Asks for a picture of `window` after its next paint, for `request` (nothing once the
    /// pictures stopped: a limit reached or the folder unwritable).
    func request(_ request: Request, of window: GtkWidgetPointer) {
        guard index != nil else { return }
        let key = UnsafeMutableRawPointer(window)
        if pending[key] != nil {
            pending[key]?.requests.append(request)
            return
        }
        guard let clock = gtk_widget_get_frame_clock(window) else {
            tell("a window without a frame clock cannot be pictured (it is not realized)")
            return
        }
        // Both held until the paint or the window's unmap: neither can go away under the handler.
        let clockObject = UnsafeMutableRawPointer(clock)
        g_object_ref(clockObject)
        g_object_ref(key)
        let context = Unmanaged.passRetained(PaintWatch(writer: self, window: key)).toOpaque()
        let callback: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, data in
            guard let data else { return }
            let watch = Unmanaged<PaintWatch>.fromOpaque(data).takeUnretainedValue()
            watch.writer?.painted(watch.window)
        }
        let handler = g_signal_connect_data(
            clockObject, "after-paint", unsafeBitCast(callback, to: GCallback.self), context,
            { data, _ in if let data { Unmanaged<PaintWatch>.fromOpaque(data).release() } }, GConnectFlags(rawValue: 0))
        pending[key] = Waiting(clock: clockObject, handler: handler, requests: [request])
        gtk_widget_queue_draw(window)
    }

    /// The window painted a frame: picture it for every request waiting.
    private func painted(_ key: UnsafeMutableRawPointer) {
        guard let waiting = pending.removeValue(forKey: key) else { return }
        defer { release(waiting, of: key) }
        guard let index else { return }
        guard taken < settings.maxCount else {
            tell("screenshots stopped at \(taken) (the count limit); later screens have none")
            self.index = nil  // stopped for good, as said
            closeIndex(index)
            return
        }
        let picture: WindowPicture
        do {
            picture = try WindowPicture(of: key.assumingMemoryBound(to: GtkWidget.self))
        } catch {
            tell("a window could not be pictured: \(error)")
            return
        }
        guard bytes + picture.png.count <= settings.maxBytes else {
            tell("screenshots stopped at \(taken) pictures, \(bytes) bytes (the byte limit); later screens have none")
            self.index = nil  // stopped for good, as said
            closeIndex(index)
            return
        }
        let file = String(format: "%04d.png", taken + 1)
        let time = (Date().timeIntervalSince1970 * 1000).rounded()
        do {
            try Data(picture.png).write(to: settings.folder.appendingPathComponent(file))
            let lines = waiting.requests.map {
                ScreenshotIndex.Entry(
                    node: $0.node, appearance: $0.appearance, file: file, width: picture.width, height: picture.height,
                    bytes: picture.png.count, time: time
                ).line + "\n"
            }.joined()
            try index.write(contentsOf: Data(lines.utf8))
        } catch {
            tell("cannot write screenshots to \(settings.folder.path): \(error.localizedDescription); no further screenshot is taken")
            self.index = nil
            closeIndex(index)
            return
        }
        taken += 1
        bytes += picture.png.count
    }

    /// Whether any window waits for its paint (the unmap hook asks before ``windowUnmapped(_:)``).
    var isWaiting: Bool { !pending.isEmpty }
    /// How many windows wait for their paint.
    var waitingCount: Int { pending.count }

    /// `widget` was unmapped: if it is a window waiting for its paint, it will not paint now;
    /// its requests go (said once).
    func windowUnmapped(_ widget: UnsafeMutableRawPointer) {
        guard let waiting = pending.removeValue(forKey: widget) else { return }
        release(waiting, of: widget)
        tell("a window closed before GTK painted it has no screenshot")
    }

    private func release(_ waiting: Waiting, of window: UnsafeMutableRawPointer) {
        g_signal_handler_disconnect(waiting.clock, waiting.handler)
        g_object_unref(waiting.clock)
        g_object_unref(window)
    }

    /// Stops: no more pictures; the index is closed.
    func close() {
        for (key, waiting) in pending { release(waiting, of: key) }
        pending.removeAll()
        if let index { closeIndex(index) }
        index = nil
    }

    /// Closes the index (each line was written with its picture: closing loses nothing, but a
    /// failure is still said).
    private func closeIndex(_ handle: FileHandle) {
        do {
            try handle.close()
        } catch {
            tell("cannot close the screenshot index in \(settings.folder.path): \(error.localizedDescription)")
        }
    }

    /// Says `message` to the app once.
    private func tell(_ message: String) {
        guard said.insert(message).inserted else { return }
        settings.onProblem(message)
    }
}

/// A paint handler's user data: the writer (weak: the writer may close first) and the window.
private final class PaintWatch {
    weak var writer: ScreenshotWriter?
    let window: UnsafeMutableRawPointer

    init(writer: ScreenshotWriter, window: UnsafeMutableRawPointer) {
        self.writer = writer
        self.window = window
    }
}
