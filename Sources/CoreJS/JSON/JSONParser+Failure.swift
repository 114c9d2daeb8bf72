extension JSONParser {
    /// Why parsing stopped, at which byte; for a check of the options, also the keys and
    /// positions above the place (``steps(to:in:)``).
    struct Failure: Error {
        enum Problem {
            case syntax(String)
            case duplicateKey(String)
            /// The number's text.
            case infiniteNumber(String)
        }

        enum Step {
            case key(String)
            case index(Int)
        }

        let problem: Problem
        let offset: Int
        /// From the top down to the container (duplicate key) or value (number).
        var path: [Step] = []

        var kind: JSONParseError.Kind {
            switch problem {
            case .syntax: .syntax
            case .duplicateKey: .duplicateKey
            case .infiniteNumber: .infiniteNumber
            }
        }

        var reason: String {
            switch problem {
            case let .syntax(reason):
                return reason
            case let .duplicateKey(key):
                return "duplicate key '\(VisibleText(key))'" + (path.isEmpty ? "" : " in '\(pathText)'")
            case let .infiniteNumber(text):
                let place = path.isEmpty ? "" : " in '\(pathText)'"
                let infinity = text.hasPrefix("-") ? "-Infinity" : "Infinity"
                return "number \(VisibleText(text, limit: 24))\(place) is out of range (it would be \(infinity), which JSON cannot carry)"
            }
        }

        /// `properties.tags[2]`; a key that is empty or holds `.`, `[`, `]` or `'` is written
        /// `["a.b"]`. A path past 120 characters keeps its start and its end, the innermost keys.
        var pathText: String {
            let text = fullPathText
            guard text.unicodeScalars.count > 120 else { return text }
            return String(String.UnicodeScalarView(text.unicodeScalars.prefix(40))) + "…"
                + String(String.UnicodeScalarView(text.unicodeScalars.suffix(79)))
        }

        private var fullPathText: String {
            var text = ""
            for step in path {
                switch step {
                case let .index(index):
                    text += "[\(index)]"
                case let .key(key) where key.isEmpty || key.contains(where: { ".[]'".contains($0) }):
                    text += "[\"\(VisibleText(key))\"]"
                case let .key(key):
                    text += (text.isEmpty ? "" : ".") + VisibleText(key).description
                }
            }
            return text
        }

        /// The keys and positions above byte `target` of a document that parsed well up to
        /// it: the containers open there and, in each, the member or element `target` is in.
        static func steps(to target: Int, in bytes: UnsafeBufferPointer<UInt8>) -> [Step] {
            var scanner = JSONByteCursor(bytes)
            var open: [(isObject: Bool, step: Step?)] = []
            var key: String?
            while scanner.position < min(target, bytes.count) {
                switch bytes[scanner.position] {
                case UInt8(ascii: "{"):
                    open.append((true, nil))
                    scanner.position += 1
                case UInt8(ascii: "["):
                    open.append((false, .index(0)))
                    scanner.position += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    open.removeLast()
                    scanner.position += 1
                case UInt8(ascii: ","):
                    if let last = open.last, !last.isObject, case let .index(index)? = last.step {
                        open[open.count - 1].step = .index(index + 1)
                    }
                    scanner.position += 1
                case UInt8(ascii: ":"):
                    if let key, !open.isEmpty { open[open.count - 1].step = .key(key) }
                    scanner.position += 1
                case UInt8(ascii: "\""):
                    // A string: a key when an object expects one (the ':' after it says so).
                    do {
                        key = try scanner.readString()
                    } catch {
                        return open.compactMap(\.step)  // the text parsed up to `target`: not reached
                    }
                default:
                    scanner.position += 1
                }
            }
            return open.compactMap(\.step)
        }
    }
}
