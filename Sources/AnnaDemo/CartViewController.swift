import Anna
import AnnaKit

/// The cart screen (`basket`), with a checkout button (`checkout`); it observes the count.
final class CartViewController: ViewController, AnalyzableObject {
    nonisolated static let subAnalyzableKeys: Set<String> = ["checkout"]

    nonisolated let checkout: Button
    let cart: Cart

    init(cart: Cart) {
        self.cart = cart
        checkout = Button(title: "Checkout")
        super.init()
    }

    override func viewDidLoad() {
        super.viewDidLoad()
        view.addSubview(checkout)
        analyzer.enable(naming: "basket")
        analyzer.observe(cart.count, for: "count")
    }

    nonisolated func subAnalyzable(for key: String) -> SubAnalyzable? {
        key == "checkout" ? .one(checkout) : nil
    }
}
