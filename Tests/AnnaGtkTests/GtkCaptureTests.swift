import Testing

/// AnnaGtk on a real GTK 4 under Broadway: each test plays a scenario of the fixture app
/// (`Tests/AnnaGtkFixture`) and checks what its manager recorded.
@Suite("GTK capture", .serialized)
struct GtkCaptureTests {
    static let shown = [
        "/shop", "/shop/home", "/shop/home/cart", "/shop/home/products",
        "/shop/home/products/cell[0]", "/shop/home/products/cell[0]/title",
        "/shop/home/products/cell[1]", "/shop/home/products/cell[1]/title",
        "/shop/home/products/cell[2]", "/shop/home/products/cell[2]/title",
        "/shop/home/gift", "/shop/home/express", "/shop/home/quantity", "/shop/home/search",
    ]

    @Test("named widgets appear parents first and disappear children first; unnamed ones are transparent; rows give their index")
    func appearOrder() async throws {
        let session = try await CapturedSession.play("appear")
        #expect(session.output.status == 0, "\(session.output.stderr)")
        let appeared = session.events.filter { $0.name == "ana-appeared" }.map(\.path)
        let disappeared = session.events.filter { $0.name == "ana-disappeared" }.map(\.path)
        #expect(appeared == Self.shown)
        #expect(Set(disappeared) == Set(Self.shown))
        for path in Self.shown {
            let children = Self.shown.filter { $0.hasPrefix(path + "/") }
            let position = try #require(disappeared.firstIndex(of: path))
            #expect(children.allSatisfy { (disappeared.firstIndex(of: $0) ?? .max) < position }, "\(path) before its children")
        }
    }

    @Test("a named button's click is touch-up-inside on its node; an unnamed button's is nothing")
    func clicks() async throws {
        let session = try await CapturedSession.play("click")
        #expect(session.output.status == 0, "\(session.output.stderr)")
        let others = session.events.filter { !$0.name.hasPrefix("ana-") }
        #expect(others.map(\.description) == ["/shop/home/cart touch-up-inside"])
    }

    @Test("a row's activation is did-select on the row's node; the page shown after it hangs under the row")
    func focusPath() async throws {
        let session = try await CapturedSession.play("focus")
        #expect(session.output.status == 0, "\(session.output.stderr)")
        #expect(session.lines.contains("/shop/home/products/cell[1] did-select"))
        let detail = session.lines.firstIndex(of: "/shop/home/products/cell[1]/detail ana-appeared")
        let button = session.lines.firstIndex(of: "/shop/home/products/cell[1]/detail/add ana-appeared")
        #expect(detail != nil && button != nil && detail! < button!)
        #expect(session.results == [#"{"event":"select","index":1,"path":"/shop/home/products/cell"}"#, #"{"event":"detail","from":1}"#])
    }

    @Test("toggles, switches, ranges and entries update their values; typing gives one text update per interval")
    func values() async throws {
        let session = try await CapturedSession.play("values")
        #expect(session.output.status == 0, "\(session.output.stderr)")
        let updates = session.events.filter { $0.name == "ana-updated" }
        #expect(updates.map(\.path) == ["/shop/home/gift", "/shop/home/express", "/shop/home/quantity", "/shop/home/search"])
        #expect(
            updates.map(\.properties) == [
                ["key-path": "active", "value": "1"], ["key-path": "active", "value": "1"],
                ["key-path": "value", "value": "3"], ["key-path": "text", "value": "socks"],
            ])
    }

    @Test("a window destroyed in a click's handler: its nodes disappear and leave; the next window works")
    func destroyDuringEvent() async throws {
        let session = try await CapturedSession.play("destroy")
        #expect(session.output.status == 0, "\(session.output.stderr)")
        #expect(!session.output.stderr.contains("CRITICAL"), "\(session.output.stderr)")
        let shopNodes = Set(session.events.filter { $0.path.hasPrefix("/shop") }.map(\.node))
        #expect(shopNodes.isSubset(of: Set(session.deregistered)))
        let shopEvents = session.lines.filter { $0.hasPrefix("/shop") }
        #expect(shopEvents.filter { $0.hasSuffix("ana-disappeared") }.count == Self.shown.count)
        #expect(session.lines.last == "/other/home/cart touch-up-inside")
    }

    @Test("uninstall removes every hook and every node; a second uninstall does nothing")
    func uninstall() async throws {
        let session = try await CapturedSession.play("uninstall")
        #expect(session.output.status == 0, "\(session.output.stderr)")
        #expect(session.lines.filter { $0.hasSuffix("touch-up-inside") } == ["/shop/home/cart touch-up-inside"])
        #expect(Set(session.events.map(\.node)).isSubset(of: Set(session.deregistered)))
    }

    @Test("a list view's rows take their index from the factory's bind; activate is did-select on the row; a .ui id names a widget")
    func listView() async throws {
        let session = try await CapturedSession.play("listView")
        #expect(session.output.status == 0, "\(session.output.stderr)")
        #expect(
            session.lines == [
                "/catalog ana-appeared", "/catalog/products ana-appeared",
                "/catalog/products/item[0] ana-appeared", "/catalog/products/item[1] ana-appeared",
                "/catalog/products/item[2] ana-appeared", "/catalog/products/item[3] ana-appeared",
                "/catalog/products/item[4] ana-appeared", "/catalog/more ana-appeared",
                "/catalog/products/item[2] did-select", "/catalog/more touch-up-inside",
            ])
    }

    @Test("a list view's model replaced by a shorter one: the rows gone disappear, the kept ones keep their index")
    func modelReplaced() async throws {
        let session = try await CapturedSession.play("modelReplaced")
        #expect(session.output.status == 0, "\(session.output.stderr)")
        #expect(!session.output.stderr.contains("CRITICAL"), "\(session.output.stderr)")
        let items = (0..<5).map { "/catalog/products/item[\($0)]" }
        #expect(
            session.lines == ["/catalog ana-appeared", "/catalog/products ana-appeared"] + items.map { "\($0) ana-appeared" }
                + ["/catalog/more ana-appeared"] + items.map { "\($0) ana-disappeared" }
                + ["\(items[0]) ana-appeared", "\(items[1]) ana-appeared", "\(items[1]) did-select"])
        // GTK made new rows for the new model: the old rows' nodes left the tree, the selection is on a new row's node.
        let appeared = session.events.filter { $0.name == "ana-appeared" && $0.path.hasPrefix("/catalog/products/item") }
        let old = Set(appeared.prefix(5).map(\.node))
        #expect(old.isSubset(of: Set(session.deregistered)))
        #expect(session.events.last?.node == appeared.last?.node && !old.contains(appeared.last?.node ?? 0))
    }

    @Test("a page hidden and shown again keeps its node")
    func reshow() async throws {
        let session = try await CapturedSession.play("reshow")
        #expect(session.output.status == 0, "\(session.output.stderr)")
        let home = session.events.filter { $0.path == "/shop/home" }
        #expect(home.map(\.name) == ["ana-appeared", "ana-disappeared", "ana-appeared"])
        #expect(Set(home.map(\.node)).count == 1)
        #expect(session.lines.suffix(2) == ["/shop/detail/add ana-disappeared", "/shop/detail ana-disappeared"])
    }
}
