// JavaScriptCore's constructors return nil only when they cannot allocate, which is fatal here
// as Swift's own allocations are: their results are unwrapped with `!`.
// swift-format-ignore-file: NeverForceUnwrap

internal import CJavaScriptCore
import OrderedCollections

extension JavaScriptContext {
    /// Builds a JavaScript value from JSON-like data.
    func makeRef(_ value: JSONValue) -> JSValueRef {
        switch value {
        case .undefined: return JSValueMakeUndefined(contextRef)
        case .null: return JSValueMakeNull(contextRef)
        case let .bool(flag): return JSValueMakeBoolean(contextRef, flag)
        case let .number(number): return JSValueMakeNumber(contextRef, number)
        case let .string(string): return withJSString(string) { JSValueMakeString(contextRef, $0) }
        case let .array(elements):
            // Each element goes into the array as soon as it exists: the collector does not
            // see values kept only in Swift memory.
            let array = JSObjectMakeArray(contextRef, 0, nil, nil)!
            for (index, element) in elements.enumerated() {
                JSObjectSetPropertyAtIndex(contextRef, array, UInt32(index), makeRef(element), nil)
            }
            return array
        case let .object(members):
            let object = JSObjectMake(contextRef, nil, nil)!
            for (key, member) in members where !member.isUndefined {
                let memberRef = makeRef(member)
                withJSString(key) { JSObjectSetProperty(contextRef, object, $0, memberRef, 0, nil) }
            }
            return object
        }
    }

    /// Reads a JavaScript value as JSON-like data (rules on ``JSONValue``). Getters, proxy
    /// traps and `toJSON` methods run; the conversion ends at the first one the watchdog
    /// stops, and after ``JSONValue/maximumConvertedValues`` values.
    func jsonValue(from ref: JSValueRef) -> JSONValue {
        var conversion = Conversion()
        return convert(ref, &conversion) ?? .undefined
    }

    /// What one conversion has visited and how much of its budget is left.
    private struct Conversion {
        var ancestors: [JSObjectRef] = []
        var remaining = JSONValue.maximumConvertedValues
        var stopped = false
    }

    /// Whether the watchdog stopped the script the last call ran; the stop is then the
    /// conversion's, not reported again by the next call.
    private func wasStopped(_ conversion: inout Conversion) -> Bool {
        if conversion.stopped { return true }
        guard watchdog.stop != nil, watchdog.isOutermost else { return false }
        if let laterStop = watchdog.laterStop {  // a promise job the reading queued, run as it ended
            stoppedPromiseJob = stopError(laterStop, operation: "a promise job queued while a value was read")
        }
        watchdog.stop = nil
        watchdog.laterStop = nil
        conversion.stopped = true
        return true
    }

    /// `nil` means "not representable" (undefined, function, symbol): dropped from objects.
    private func convert(_ ref: JSValueRef, _ conversion: inout Conversion) -> JSONValue? {
        if conversion.stopped { return JSONValue.stopped }
        if conversion.remaining <= 0 { return JSONValue.truncated }
        conversion.remaining -= 1
        switch JSValueGetType(contextRef, ref) {
        case kJSTypeNull:
            return .null
        case kJSTypeBoolean:
            return .bool(JSValueToBoolean(contextRef, ref))
        case kJSTypeNumber:
            let number = JSValueToNumber(contextRef, ref, nil)
            return number.isFinite ? .number(number) : .null
        case kJSTypeString:
            return .string(describe(ref))
        case kJSTypeBigInt:
            return .string(describe(ref))
        case kJSTypeObject:
            guard let object = JSValueToObject(contextRef, ref, nil) else { return nil }
            if JSObjectIsFunction(contextRef, object) { return nil }
            if conversion.ancestors.contains(object) { return .string("[Circular]") }
            if conversion.ancestors.count >= JSONValue.maximumDepth { return JSONValue.tooDeep }
            conversion.ancestors.append(object)
            defer { conversion.ancestors.removeLast() }
            if JSValueIsArray(contextRef, ref) { return .array(convertArray(object, &conversion)) }
            if JSValueIsDate(contextRef, ref) { return isoString(of: object) }
            if isError(object) { return errorSummary(of: object, &conversion) }  // its own fields, whatever toJSON says
            if let replacement = toJSONResult(of: object) { return convert(replacement, &conversion) }
            if wasStopped(&conversion) { return JSONValue.stopped }
            return .object(convertObject(object, &conversion))
        default:  // undefined, symbol
            return nil
        }
    }

    /// What the object's own or inherited `toJSON` returns, as `JSON.stringify` would use it;
    /// `nil` when it has none, when it throws, or when it returns the object itself.
    private func toJSONResult(of object: JSObjectRef) -> JSValueRef? {
        guard let method = propertyValue(contextRef, object, "toJSON"), let function = JSValueToObject(contextRef, method, nil),
            JSObjectIsFunction(contextRef, function)
        else { return nil }
        var exception: JSValueRef?
        let result = JSObjectCallAsFunction(contextRef, function, object, 0, nil, &exception)
        guard exception == nil, let result, !JSValueIsStrictEqual(contextRef, result, object) else { return nil }
        return result
    }

    /// The elements, at most as many as the budget allows (a sparse array may claim billions).
    private func convertArray(_ array: JSObjectRef, _ conversion: inout Conversion) -> [JSONValue] {
        let lengthRef = propertyValue(contextRef, array, "length")
        let length = lengthRef.map { JSValueToNumber(contextRef, $0, nil) } ?? 0
        guard !wasStopped(&conversion), length >= 1, length.isFinite else { return [] }
        let count = min(Int(length), conversion.remaining + 1)
        var elements: [JSONValue] = []
        elements.reserveCapacity(count)
        for index in 0..<count {
            let element = JSObjectGetPropertyAtIndex(contextRef, array, UInt32(index), nil)
            if wasStopped(&conversion) {
                elements.append(JSONValue.stopped)
                break
            }
            elements.append(element.flatMap { convert($0, &conversion) } ?? .null)
        }
        return elements
    }

    private func convertObject(_ object: JSObjectRef, _ conversion: inout Conversion) -> OrderedDictionary<String, JSONValue> {
        let names = JSObjectCopyPropertyNames(contextRef, object)!
        defer { JSPropertyNameArrayRelease(names) }
        let count = JSPropertyNameArrayGetCount(names)
        var members = OrderedDictionary<String, JSONValue>(minimumCapacity: min(count, conversion.remaining))
        for position in 0..<count {
            if conversion.remaining <= 0 {
                members["[Truncated]"] = JSONValue.truncated
                break
            }
            let name = JSPropertyNameArrayGetNameAtIndex(names, position)!
            let member = JSObjectGetProperty(contextRef, object, name, nil)
            if wasStopped(&conversion) {
                members[String(jsString: name)] = JSONValue.stopped
                break
            }
            guard let member, let value = convert(member, &conversion) else { continue }
            members[String(jsString: name)] = value
        }
        return members
    }

    private func isoString(of date: JSObjectRef) -> JSONValue {
        guard let method = propertyValue(contextRef, date, "toISOString"),
            let function = JSValueToObject(contextRef, method, nil),
            let text = JSObjectCallAsFunction(contextRef, function, date, 0, nil, nil)
        else { return .null }
        return JSValueIsString(contextRef, text) ? .string(describe(text)) : .null
    }

    /// `name` and `message` (not enumerable on errors) followed by the own enumerable members.
    private func errorSummary(of error: JSObjectRef, _ conversion: inout Conversion) -> JSONValue {
        func text(_ key: String) -> String {
            propertyValue(contextRef, error, key).map(describe) ?? ""
        }
        var members: OrderedDictionary<String, JSONValue> = ["name": .string(text("name")), "message": .string(text("message"))]
        members.merge(convertObject(error, &conversion)) { _, enumerable in enumerable }
        return .object(members)
    }
}
