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

    /// The namespace operation `index` registers its node with; `nil` for another operation or
    /// a register without one. Reads only the code and the namespace (debug mode's check for
    /// task files never loaded runs it on every operation).
    func registeredNamespace(at index: Int) -> String? {
        let start = batch.starts[index]
        guard BridgeWire.OperationCode(rawValue: batch.numbers[start]) == .register else { return nil }
        // code, time, id (kind, value), parent (kind, value), name, index, namespace
        let namespace = batch.numbers[start + 8]
        return namespace.isNaN ? nil : string(Int(namespace))
    }

    private mutating func readOperation() -> TimedOperation {
        let code = BridgeWire.OperationCode(rawValue: next())
        let time = next()
        let operation: ModuleOperation
        switch code {
        case .register:
            let id = nodeID() ?? NodeID(0)
            let parent = nodeID()
            let name = string()
            let position = next()
            let namespace = next()
            let attributes: JSONValue? =
                switch object() {
                case .null: .none  // sent for a missing one (JSONValue's `nil` literal is `.null`)
                case let given: given
                }
            operation = .register(
                id: id, parent: parent, name: name, index: position.isNaN ? nil : Int(position),
                namespace: namespace.isNaN ? nil : string(Int(namespace)), attributes: attributes)
        case .event:
            let id = nodeID() ?? NodeID(0)
            let name = string()
            operation = .event(id: id, name: name, properties: object())
        case .deregister, nil:  // the encoder writes no other code
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
        let kind = next()
        let value = next()
        switch BridgeWire.IDKind(rawValue: kind) {
        case .plain: return NodeID(Int(value))
        case .keyed: return parsed(string(Int(value))).flatMap(NodeID.init(json:))
        case .absent, nil: return nil
        }
    }

    private mutating func object() -> JSONValue {
        let count = next()
        switch BridgeWire.ObjectHeader(rawValue: count) {
        case .null: return .null
        case .value: return value()
        case nil: guard count >= 0 else { return .null }  // the encoder writes no other header
        }
        var keys: [String] = []
        var values: [JSONValue] = []
        for _ in 0..<Int(count) {
            keys.append(string())
            values.append(value())
        }
        return .object(.init(uncheckedUniqueKeys: keys, values: values))
    }

    private mutating func value() -> JSONValue {
        switch BridgeWire.ValueTag(rawValue: next()) {
        case .number: return .number(next())
        case .string: return .string(string())
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .null, nil: return .null
        case .json: return parsed(string()) ?? .null
        }
    }

    /// JSON text the encoder wrote (a keyed ID, an array or object value); it always parses.
    private func parsed(_ text: String) -> JSONValue? {
        do {
            return try JSONValue(parsing: text)
        } catch {
            assertionFailure("the encoder wrote JSON that does not parse: \(error)")
            return nil
        }
    }
}
