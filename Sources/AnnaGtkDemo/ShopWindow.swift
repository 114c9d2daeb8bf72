import Anna
import AnnaGtk
import CGtk
import DemoCatalog

/// The shop as a GTK 4 window: a stack whose visible page is the screen, `home` (a `cart`
/// button and a `products` list of `cell` rows) with a `product` page or the `basket` pushed on
/// top. No analytics code beyond names, namespaces and the values only the app knows.
final class ShopWindow {
    let capture: GtkCapture
    let window: GtkWidgetPointer
    let stack: GtkWidgetPointer
    let home: GtkWidgetPointer
    let cartButton: GtkWidgetPointer
    let products: GtkWidgetPointer
    private(set) var cart: [Product] = []
    /// The page on top of home, with its main button (add to cart, or check out).
    private(set) var pushed: (page: GtkWidgetPointer, button: GtkWidgetPointer, product: Product?)?
    /// Whether each page switch waits until the capture has pictured the window (GTK paints it).
    var waitsForPictures = false

    init(capture: GtkCapture) {
        self.capture = capture
        cartButton = Self.named(gtk_button_new_with_label("Cart (0)"), "cart")
        products = Self.named(gtk_list_box_new(), "products")
        home = Self.named(gtk_box_new(GTK_ORIENTATION_VERTICAL, 6), "home")
        GtkCapture.setNamespace("HomeViewController", for: home)
        gtk_box_append(Self.cast(home, GtkBox.self), cartButton)
        gtk_box_append(Self.cast(home, GtkBox.self), products)
        stack = Self.widget(gtk_stack_new())
        gtk_stack_add_named(OpaquePointer(stack), home, "home")
        window = Self.widget(gtk_window_new())
        gtk_window_set_title(Self.cast(window, GtkWindow.self), "Anna shop")
        gtk_window_set_default_size(Self.cast(window, GtkWindow.self), 360, 480)
        gtk_window_set_child(Self.cast(window, GtkWindow.self), stack)
        capture.analyzer(for: cartButton)?.update(0, for: "count")
        for product in Catalog.products {
            let row = Self.named(gtk_list_box_row_new(), "cell")
            gtk_list_box_row_set_child(Self.cast(row, GtkListBoxRow.self), gtk_label_new("\(product.name) · \(product.price)"))
            gtk_list_box_append(OpaquePointer(products), row)
            capture.analyzer(for: row)?.update(product.id, for: "product-id")
        }
        connect(products, "row-activated", Self.rowActivated)
        connect(cartButton, "clicked", Self.cartClicked)
    }

    func present() {
        gtk_window_present(Self.cast(window, GtkWindow.self))
        settle(milliseconds: 50)
    }

    // MARK: - What the user does

    /// Opens the product of row `index` above home.
    func openProduct(at index: Int) {
        let product = Catalog.products[index]
        let add = Self.named(gtk_button_new_with_label("Add to cart"), "add-to-cart")
        let page = Self.named(gtk_box_new(GTK_ORIENTATION_VERTICAL, 6), "product")
        GtkCapture.setNamespace("ProductDetailViewController", for: page)
        gtk_box_append(Self.cast(page, GtkBox.self), gtk_label_new("\(product.name): \(product.price)"))
        gtk_box_append(Self.cast(page, GtkBox.self), add)
        connect(add, "clicked", Self.addClicked)
        capture.analyzer(for: page)?.update(product.id, for: "product-id")
        capture.analyzer(for: page)?.update(product.price, for: "price")
        push(page, button: add, product: product)
    }

    /// Opens the basket above home.
    func openBasket() {
        let checkout = Self.named(gtk_button_new_with_label("Check out"), "checkout")
        let page = Self.named(gtk_box_new(GTK_ORIENTATION_VERTICAL, 6), "basket")
        GtkCapture.setNamespace("CartViewController", for: page)
        gtk_box_append(Self.cast(page, GtkBox.self), checkout)
        capture.analyzer(for: page)?.update(cart.count, for: "count")
        push(page, button: checkout, product: nil)
    }

    /// Back to home: the page on top is removed (a screen opened again is a new one, as a
    /// pushed controller is).
    func back() {
        guard let pushed else { return }
        gtk_stack_set_visible_child(OpaquePointer(stack), home)
        gtk_stack_remove(OpaquePointer(stack), pushed.page)
        self.pushed = nil
        settle()
    }

    private func push(_ page: GtkWidgetPointer, button: GtkWidgetPointer, product: Product?) {
        gtk_stack_add_named(OpaquePointer(stack), page, nil)
        gtk_stack_set_visible_child(OpaquePointer(stack), page)
        pushed = (page, button, product)
        settle()
    }

    /// Lets GTK map, unmap and (with pictures) paint what changed.
    private func settle(milliseconds: Int = 0) {
        GtkScript.settle(milliseconds: milliseconds)
        if waitsForPictures {
            // Broadway without a browser paints about once a second.
            GtkScript.settle(until: { capture.pendingScreenshots == 0 }, timeoutMilliseconds: 3000)
        }
    }

    private func addToCart() {
        guard let product = pushed?.product else { return }
        cart.append(product)
        gtk_button_set_label(Self.cast(cartButton, GtkButton.self), "Cart (\(cart.count))")
        capture.analyzer(for: cartButton)?.update(cart.count, for: "count")
    }

    // MARK: - GTK plumbing

    private func connect(_ widget: GtkWidgetPointer, _ signal: String, _ handler: GCallback) {
        g_signal_connect_data(widget, signal, handler, Unmanaged.passUnretained(self).toOpaque(), nil, GConnectFlags(0))
    }

    private static func shop(_ data: gpointer?) -> ShopWindow? {
        data.map { Unmanaged<ShopWindow>.fromOpaque($0).takeUnretainedValue() }
    }

    private static let rowActivated = unsafeBitCast(
        { (_: gpointer?, row: gpointer?, data: gpointer?) in
            guard let row else { return }
            let index = gtk_list_box_row_get_index(row.assumingMemoryBound(to: GtkListBoxRow.self))
            shop(data)?.openProduct(at: Int(index))
        } as @convention(c) (gpointer?, gpointer?, gpointer?) -> Void, to: GCallback.self)

    private static let cartClicked = unsafeBitCast(
        { (_: gpointer?, data: gpointer?) in shop(data)?.openBasket() } as @convention(c) (gpointer?, gpointer?) -> Void,
        to: GCallback.self)

    private static let addClicked = unsafeBitCast(
        { (_: gpointer?, data: gpointer?) in shop(data)?.addToCart() } as @convention(c) (gpointer?, gpointer?) -> Void,
        to: GCallback.self)

    static func widget(_ widget: GtkWidgetPointer?) -> GtkWidgetPointer {
        guard let widget else { fatalError("GTK made no widget") }
        return widget
    }

    static func named(_ widget: GtkWidgetPointer?, _ name: String) -> GtkWidgetPointer {
        let widget = Self.widget(widget)
        gtk_widget_set_name(widget, name)
        return widget
    }

    static func cast<Instance>(_ widget: GtkWidgetPointer, _: Instance.Type) -> UnsafeMutablePointer<Instance> {
        UnsafeMutableRawPointer(widget).assumingMemoryBound(to: Instance.self)
    }
}
