import Anna
import AnnaKit
import Testing

/// The README's kit example, as written there.
final class HomeViewController: ViewController, MainActorAnalyzableObject {
    static let subAnalyzableKeys: Set<String> = ["buy"]
    let buy = Button(title: "Buy")

    override func viewDidLoad() {
        super.viewDidLoad()
        view.addSubview(buy)
        analyzer.enable(naming: "home")
    }

    func subAnalyzable(for key: String) -> SubAnalyzable? { key == "buy" ? .one(buy) : nil }
}

@MainActor
@Suite("The README's kit example")
struct ReadmeExampleTests {
    @Test("showing a controller and tapping its button record ana-appeared and touch-up-inside on /home/buy")
    func kitExample() async throws {
        let harness = Harness()
        let home = HomeViewController()
        harness.application.window = Window(rootViewController: home)
        home.buy.tap()
        #expect(
            await harness.traces() == [
                Trace("ana-appeared", "/home/buy"), Trace("ana-appeared", "/home"), Trace("touch-up-inside", "/home/buy"),
            ])
    }
}
