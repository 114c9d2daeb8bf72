import Anna
import AnnaKit
import DemoCatalog

/// A row of the product list: its product's ID is observed as `product-id`.
final class ProductCell: TableViewCell {
    let productID = ObservableValue<String?>(nil)

    required init(reuseIdentifier: String?) {
        super.init(reuseIdentifier: reuseIdentifier)
        analyzer.observe(productID, for: "product-id")
    }
}

/// The home screen (`home`): the product list (`products`) and the cart badge button
/// (`cart`, whose count is observed).
final class HomeViewController: ViewController, AnalyzableObject, TableViewDataSource, TableViewDelegate {
    nonisolated static let subAnalyzableKeys: Set<String> = ["products", "cart"]

    nonisolated let products: TableView
    nonisolated let cartButton: Button
    let cart: Cart

    init(cart: Cart, visibleRows: Int) {
        self.cart = cart
        products = TableView(visibleRowCount: visibleRows)
        cartButton = Button(title: "Cart")
        super.init()
    }

    override func viewDidLoad() {
        super.viewDidLoad()
        products.register(ProductCell.self, forCellReuseIdentifier: "Product")
        products.dataSource = self
        products.delegate = self
        view.addSubview(cartButton)
        view.addSubview(products)
        cartButton.addAction(for: .touchUpInside) { [weak self] _ in
            guard let self else { return }
            navigationController?.pushViewController(CartViewController(cart: cart))
        }
        analyzer.enable(naming: "home")
        cartButton.analyzer.observe(cart.count, for: "count")
    }

    nonisolated func subAnalyzable(for key: String) -> SubAnalyzable? {
        switch key {
        case "products": return .one(products)
        case "cart": return .one(cartButton)
        default: return nil
        }
    }

    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
        Catalog.products.count
    }

    func tableView(_ tableView: TableView, cellForRowAt indexPath: TableIndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "Product", for: indexPath)
        (cell as? ProductCell)?.productID.value = Catalog.products[indexPath.row].id
        return cell
    }

    func tableView(_ tableView: TableView, didSelectRowAt indexPath: TableIndexPath) {
        let detail = ProductDetailViewController(product: Catalog.products[indexPath.row], cart: cart)
        navigationController?.pushViewController(detail)
    }
}
