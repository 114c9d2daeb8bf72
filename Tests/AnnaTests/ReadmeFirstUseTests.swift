import Anna
import AnnaTestSupport
import CoreJS
import Foundation
import Testing

/// The README's first use, as written there: an app, three screens, a collecting delegate.
private final class App: Responder, Analyzable, @unchecked Sendable {
    var nextResponder: (any Responder)? { nil }
    let analyzer: any Analyzing
    init(manager: Manager) { analyzer = RootAnalyzer(manager: manager) }
}

private final class Screen: Responder, Analyzable, @unchecked Sendable {
    let parent: any Responder
    var nextResponder: (any Responder)? { parent }
    lazy var analyzer: any Analyzing = Analyzer.analyzer(with: self)
    init(parent: any Responder) { self.parent = parent }
}

@Suite("The README's first use")
struct ReadmeFirstUseTests {
    @Test("the two tasks give the two results the README prints, through a CollectingDelegate")
    func firstUse() async throws {
        let folder = try TemporaryFolder([
            "analytics/index.js": "module.exports = require('anna').configured({ task: __dirname + '/task' })\n",
            "analytics/task/index.js": """
            match('master/table/cell/did-select', node => ({ action: 'selected', id: node.path, row: node.index }));
            match('cell/ana-updated', node => ({ title: node.latestValue('title') }));

            """,
        ])
        let manager = Manager(moduleURL: folder.url.appendingPathComponent("analytics"))
        let printer = CollectingDelegate(onResult: { print($0.value.jsonText) }, onError: { print("error:", $0) })
        manager.delegate = printer

        let app = App(manager: manager)
        let master = Screen(parent: app)
        let table = Screen(parent: master)
        let cell = Screen(parent: table)
        master.analyzer.enable(naming: "master")
        master.analyzer.setSubAnalyzer(table.analyzer, for: "table")
        table.analyzer.setSubAnalyzers([cell.analyzer], for: "cell")
        cell.analyzer.record("did-select")
        cell.analyzer.update("Boots", for: "title")
        await manager.flush()

        #expect(printer.results.map(\.value.jsonText) == [#"{"action":"selected","id":"/master/table/cell","row":0}"#, #"{"title":"Boots"}"#])
        #expect(printer.errors.isEmpty)
    }
}
