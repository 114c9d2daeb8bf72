import Anna
import AnnaKit
import DemoCatalog

/// The product screen (`product`), with an "add to cart" button (`add-to-cart`).
final class ProductDetailViewController: ViewController, AnalyzableObject {
    nonisolated static let subAnalyzableKeys: Set<String> = ["add-to-cart"]

    nonisolated let addToCart: Button
    let product: Product
    let cart: Cart

    init(product: Product, cart: Cart) {
        self.product = product
        self.cart = cart
        addToCart = Button(title: "Add to cart")
        super.init()
        title = product.name
    }

    override func viewDidLoad() {
        super.viewDidLoad()
        view.addSubview(addToCart)
        addToCart.addAction(for: .touchUpInside) { [weak self] _ in
            guard let self else { return }
            cart.add(product)
        }
        analyzer.enable(naming: "product")
        analyzer.update(product.id, for: "product-id")
        analyzer.update(product.price, for: "price")
    }

    nonisolated func subAnalyzable(for key: String) -> SubAnalyzable? {
        key == "add-to-cart" ? .one(addToCart) : nil
    }
}
