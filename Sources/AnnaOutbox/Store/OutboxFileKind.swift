import Foundation

/// Whether a file may be opened as an outbox, decided before anything writes to it: an
/// outbox never adds its tables to another program's SQLite database, nor renames (salvages)
/// a file that is not an outbox.
enum OutboxFileKind: Equatable {
    /// Missing or empty: an outbox is created there.
    case new
    /// An outbox, whole or damaged.
    case outbox
    /// Anything else, with what it is.
    case foreign(String)

    /// The text SQLite keeps for each of the outbox's tables (`CREATE TABLE …`, up to 80
    /// characters): in every outbox file (or its write-ahead log) unless its schema page is
    /// destroyed; another program would have to define a table exactly so to be mistaken.
    private static let markers = OutboxSchema.tables.map { Array($0.sql.prefix(80).utf8) }
    private static let sqliteMagic = Array("SQLite format 3\0".utf8)

    /// What the file at `path` is (its first megabyte, and its write-ahead log's, are read).
    static func of(path: String) -> OutboxFileKind {
        let head = prefix(of: path)
        let log = prefix(of: path + "-wal")
        guard let head, !head.isEmpty else {
            return (log.map(containsMarker) ?? false) || log?.isEmpty != false
                ? .new : .foreign("an empty file beside a write-ahead log of another database")
        }
        if containsMarker(head) || (log.map(containsMarker) ?? false) { return .outbox }
        guard head.starts(with: sqliteMagic.prefix(min(head.count, sqliteMagic.count))) else {
            return .foreign("not an SQLite file")
        }
        // An SQLite file without the outbox's schema text. It is not opened (even a read-only
        // open of a database in WAL mode adds files beside it): its schema text is looked for.
        let tables = tableNames(in: head + (log ?? []))
        // Only the outbox's own table names, their text cut short: an outbox, damaged.
        let own = Set(OutboxSchema.tables.map(\.name) + ["grdb_migrations"])
        if !tables.isEmpty, tables.allSatisfy(own.contains) { return .outbox }
        if !tables.isEmpty {
            return .foreign("an SQLite database with other tables: \(tables.prefix(5).joined(separator: ", "))")
        }
        // No schema at all: a new database of one page, or an outbox whose schema page is damaged.
        return head.count <= 65536 && (log?.isEmpty ?? true) ? .new : .outbox
    }

    /// The names after each `CREATE TABLE` in `bytes` (any case), in order.
    private static func tableNames(in bytes: [UInt8]) -> [String] {
        let lowered = bytes.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
        let needle = Array("create table ".utf8)
        var names: [String] = []
        var index = 0
        while index + needle.count <= lowered.count {
            if lowered[index] == needle[0], lowered[index..<(index + needle.count)].elementsEqual(needle) {
                var end = index + needle.count
                while end < bytes.count, end - index < 200, ![32, 40, 10, 13, 9, 0].contains(bytes[end]) { end += 1 }
                let name = String(decoding: bytes[(index + needle.count)..<end], as: UTF8.self)
                if !name.isEmpty, !names.contains(name) { names.append(name) }
                index = end
            } else {
                index += 1
            }
        }
        return names
    }

    private static func containsMarker(_ bytes: [UInt8]) -> Bool {
        markers.contains { marker in
            bytes.withUnsafeBufferPointer { buffer in
                guard buffer.count >= marker.count else { return false }
                var index = 0
                while index <= buffer.count - marker.count {
                    if buffer[index] == marker[0], Array(buffer[index..<(index + marker.count)]) == marker { return true }
                    index += 1
                }
                return false
            }
        }
    }

    /// The first megabyte of the file; `nil` when it cannot be read (missing).
    private static func prefix(of path: String) -> [UInt8]? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }  // a read handle: nothing to lose
        do {
            return Array(try handle.read(upToCount: 1 << 20) ?? Data())
        } catch {
            return nil
        }
    }
}
