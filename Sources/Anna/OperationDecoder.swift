import CoreJS
import OrderedCollections

/// Reads operations back from an ``EncodedOperations`` batch: for error messages, the event
/// recorder and the debug backlog, which need them whole (the hot path never decodes).
struct OperationDecoder {
    let batch: EncodedOperations
    /// The interned table as it stands after `batch`.
    let table: StringTableMirror
    private var at = 0

    init(batch: EncodedOperations, table: StringTableMirror) {
        self.batch = batch
        self.table = table
    }

    /// Operation `index` of the batch with its time (`nil` when it was encoded without one).
    func operation(at index: Int) -> TimedOperation {
        var reader = self
        reader.at = batch.starts[index]
        return reader.readOperation()
    }

    private mutating func readOperation() -> TimedOperation {
        let code = next()
        let time = next()
        let operation: ModuleOperation
        switch code {
        case 0:
            let id = nodeID() ?? NodeID(0)
            let parent = nodeID()
            let name = string()
            let position = next()
            let namespace = next()
            let attributes: JSONValue? = switch object() {
            case .null: .none  // sent for a missing one (JSONValue's `nil` literal is `.null`)
            case let given: given
            }
            operation = .register(
                id: id, parent: parent, name: name, index: position.isNaN ? nil : Int(position),
                namespace: namespace.isNaN ? nil : string(Int(namespace)), attributes: attributes)
        case 1:
            let id = nodeID() ?? NodeID(0)
            let name = string()
            operation = .event(id: id, name: name, properties: object())
        default:
            operation = .deregister(id: nodeID() ?? NodeID(0))
        }
        return TimedOperation(operation, time: time.isNaN ? nil : time)
    }

    private mutating func next() -> Double {
        defer { at += 1 }
        return batch.numbers[at]
    }

    private mutating func string() -> String {
        string(Int(next()))
    }

    private func string(_ index: Int) -> String {
        guard let text = table.string(index, in: batch) else {
            assertionFailure("string \(index) is in neither the interned table nor the batch's literals")
            return ""
        }
        return text
    }

    private mutating func nodeID() -> NodeID? {
        let kind = next(), value = next()
        switch kind {
        case 0: return NodeID(Int(value))
        case 1: return (try? JSONValue(parsing: string(Int(value)))).flatMap(NodeID.init(json:))
        default: return nil
        }
    }

    private mutating func object() -> JSONValue {
        let count = Int(next())
        if count == -1 { return .null }
        if count < 0 { return value() }
        var keys: [String] = []
        var values: [JSONValue] = []
        for _ in 0..<count {
            keys.append(string())
            values.append(value())
        }
        return .object(.init(uncheckedUniqueKeys: keys, values: values))
    }

    private mutating func value() -> JSONValue {
        switch next() {
        case 0: return .number(next())
        case 1: return .string(string())
        case 2: return .bool(true)
        case 3: return .bool(false)
        case 4: return .null
        default: return (try? JSONValue(parsing: string())) ?? .null
        }
    }
}
