import CoreJS

/// The wire format between the bridge's Swift half (``OperationEncoder``,
/// ``OperationDecoder``, ``ModuleBridge``) and its JavaScript half (`Scripts/module-bridge.js`,
/// whose decoder `Scripts/operation-decoder.js` reads the format), named in this one place.
///
/// The JavaScript half receives ``table`` when it is installed and takes every code from it,
/// refusing to install when a name it reads is missing; it reports the names it read, and a
/// test checks they are exactly the table's. A batch is a run of numbers; per operation:
/// `code, time`, then
/// - ``OperationCode/register``: `id, parent, name, index, namespace, attributes`
/// - ``OperationCode/event``: `id, name, properties`
/// - ``OperationCode/deregister``: `id`
///
/// An ID is `kind, value` (``IDKind``). A string is an index: `≥ 0` into the interned table
/// (each batch brings the strings it added; see ``StringTableMirror``), `< 0` into the
/// batch's literals (`-1` is the first). An object is its member count then `key, value`
/// pairs, or an ``ObjectHeader`` in place of the count. A value is `tag[, payload]`
/// (``ValueTag``). Missing numbers (time, index, namespace) are NaN.
enum BridgeWire {
    /// The first number of an operation.
    enum OperationCode: Double, CaseIterable {
        /// `registerNode(id, parentID, name, index, namespace, attributes)`.
        case register = 0
        /// `recordEvent(name, properties, nodeID)`.
        case event = 1
        /// `deregisterNodes(id)`.
        case deregister = 2
    }

    /// The first number of an ID.
    enum IDKind: Double, CaseIterable {
        /// No ID (a root's parent); the value is 0.
        case absent = -1
        /// A plain ID; the value is the number.
        case plain = 0
        /// A keyed ID; the value is the string of its JSON text.
        case keyed = 1
    }

    /// The first number of a value.
    enum ValueTag: Double, CaseIterable {
        /// A number follows.
        case number = 0
        /// A string follows.
        case string = 1
        /// `true`, nothing follows.
        case `true` = 2
        /// `false`, nothing follows.
        case `false` = 3
        /// `null`, nothing follows.
        case null = 4
        /// The string of an array's or object's JSON text follows.
        case json = 5
    }

    /// What stands in an object's count position when the value is not an object.
    enum ObjectHeader: Double, CaseIterable {
        /// `null` (or nothing: a registration without attributes).
        case null = -1
        /// Another value, encoded as a value follows.
        case value = -2
    }

    /// The table handed to the JavaScript half: a group per enum, a member per case.
    static let table: JSONValue = .object([
        "operation": members(OperationCode.self),
        "idKind": members(IDKind.self),
        "valueTag": members(ValueTag.self),
        "objectHeader": members(ObjectHeader.self),
    ])

    /// Every name of ``table`` as `group.member`, sorted.
    static var names: [String] {
        guard case let .object(groups) = table else { return [] }
        return groups.flatMap { group, members in
            (members.objectValue?.keys.map { "\(group).\($0)" }) ?? []
        }.sorted()
    }

    private static func members<Code: CaseIterable & RawRepresentable>(_: Code.Type) -> JSONValue
    where Code.RawValue == Double {
        .object(.init(uniqueKeysWithValues: Code.allCases.map { ("\($0)", JSONValue.number($0.rawValue)) }))
    }
}
