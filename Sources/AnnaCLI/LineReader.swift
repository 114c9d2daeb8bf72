import Foundation

/// Reads a file (or standard input, as lines arrive) one line at a time.
final class LineReader {
    /// How the input is named in messages: the path, or `<stdin>`.
    let name: String
    private let file: UnsafeMutablePointer<FILE>
    private let ownsFile: Bool
    private var buffer: UnsafeMutablePointer<CChar>?
    private var capacity = 0

    /// Opens `path`, or standard input for `-`; `nil` when the file cannot be opened.
    init?(path: String) {
        if path == "-" {
            name = "<stdin>"
            guard let input = fdopen(STDIN_FILENO, "r") else { return nil }
            file = input
            ownsFile = false
        } else {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                let opened = fopen(path, "r")
            else { return nil }
            name = path
            file = opened
            ownsFile = true
        }
    }

    deinit {
        free(buffer)
        if ownsFile { fclose(file) }
    }

    /// The next line without its line break, or `nil` at the end.
    func nextLine() -> String? {
        let length = getline(&buffer, &capacity, file)
        guard length >= 0, let buffer else { return nil }
        var end = length
        while end > 0, buffer[end - 1] == 0x0A || buffer[end - 1] == 0x0D { end -= 1 }
        return buffer.withMemoryRebound(to: UInt8.self, capacity: max(end, 1)) {
            String(decoding: UnsafeBufferPointer(start: $0, count: end), as: UTF8.self)
        }
    }
}
