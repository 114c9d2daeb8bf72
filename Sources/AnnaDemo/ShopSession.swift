import AnnaKit

/// The scripted session the demo plays: what a user of the shop does.
@MainActor
struct ShopSession {
    let application: Application
    let cart = Cart()

    func run() {
        // Launch: the home screen shows the first four products and the empty cart badge.
        let home = HomeViewController(cart: cart, visibleRows: 4)
        let navigation = NavigationController(rootViewController: home)
        application.window = Window(rootViewController: navigation)

        // Scroll down: rows 4 to 7 come in on reused cells.
        home.products.scroll(toRow: TableIndexPath(row: 4))

        // Open the socks (row 7), add them to the cart, come back.
        home.products.selectRow(at: TableIndexPath(row: 7))
        (navigation.topViewController as? ProductDetailViewController)?.addToCart.tap()
        navigation.popViewController()

        // Open the beanie (row 6), add two, come back: the badge shows 3.
        home.products.selectRow(at: TableIndexPath(row: 6))
        if let detail = navigation.topViewController as? ProductDetailViewController {
            detail.addToCart.tap()
            detail.addToCart.tap()
        }
        navigation.popViewController()

        // Open the cart and check out.
        home.cartButton.tap()
        (navigation.topViewController as? CartViewController)?.checkout.tap()
    }
}
