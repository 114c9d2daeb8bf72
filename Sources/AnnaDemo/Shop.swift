import Anna
import DemoCatalog

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
