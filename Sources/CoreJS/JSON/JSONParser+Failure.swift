extension JSONParser {
    /// Why parsing stopped, at which byte; a check of the options also collects the keys and
    /// positions above the place, as the failure leaves each container.
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
    }
}
