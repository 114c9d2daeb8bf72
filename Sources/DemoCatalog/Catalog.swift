// The demo shop's products, shared by the kit demo and the GTK demo so both tell one story.

/// A product of the demo shop.
public struct Product: Sendable {
    /// The stock-keeping unit, sent as `product-id`.
    public let id: String
    /// The name shown in the list.
    public let name: String
    /// The price, sent as `price`.
    public let price: Double
}

/// The products the home screen lists.
public enum Catalog {
    /// Ten products, in list order.
    public static let products: [Product] = [
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
