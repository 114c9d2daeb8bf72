import Anna

/// A product of the demo shop.
struct Product: Sendable {
    let id: String
    let name: String
    let price: Double
}

/// The products the home screen lists.
enum Catalog {
    static let products: [Product] = [
        Product(id: "sku-mug", name: "Mug", price: 9.5),
        Product(id: "sku-tee", name: "T-shirt", price: 19),
        Product(id: "sku-cap", name: "Cap", price: 14),
        Product(id: "sku-bag", name: "Tote bag", price: 12),
        Product(id: "sku-pen", name: "Pen", price: 2.5),
        Product(id: "sku-pad", name: "Notebook", price: 6),
        Product(id: "sku-hat", name: "Beanie", price: 16),
        Product(id: "sku-sox", name: "Socks", price: 8),
        Product(id: "sku-pin", name: "Pin", price: 3),
        Product(id: "sku-kit", name: "Sticker kit", price: 4),
    ]
}

/// The shopping cart; its item count is observable, so the cart badge is analyzed.
@MainActor
final class Cart {
    private(set) var items: [Product] = []
    /// The number of items, shown on the cart badge.
    let count = ObservableValue(0)

    func add(_ product: Product) {
        items.append(product)
        count.value = items.count
    }
}
