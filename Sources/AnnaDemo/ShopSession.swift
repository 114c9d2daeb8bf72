import AnnaKit
import DemoCatalog

/// The scripted session the demo plays: what a user of the shop does.
@MainActor
struct ShopSession {
    let application: Application
    let cart = Cart()

    func run(extraVisits: Int = 0) {
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
        navigation.popToRootViewController()

        var random = SeededRandom(seed: 2026)
        for visit in 0..<extraVisits {
            browse(home: home, navigation: navigation, random: &random, checkingOut: visit % 4 == 3)
        }
    }

    /// One more visit: scroll somewhere, open a few products, maybe add them, maybe check out.
    private func browse(
        home: HomeViewController, navigation: NavigationController, random: inout SeededRandom, checkingOut: Bool
    ) {
        let rowCount = Catalog.products.count
        home.products.scroll(toRow: TableIndexPath(row: random.next(below: rowCount)))
        for _ in 0..<(1 + random.next(below: 3)) {
            guard let row = home.products.indexPathsForVisibleRows.map(\.row).randomElement(using: &random) else { break }
            home.products.selectRow(at: TableIndexPath(row: row))
            if let detail = navigation.topViewController as? ProductDetailViewController {
                for _ in 0..<random.next(below: 3) { detail.addToCart.tap() }
            }
            navigation.popViewController()
        }
        if checkingOut {
            home.cartButton.tap()
            (navigation.topViewController as? CartViewController)?.checkout.tap()
            navigation.popToRootViewController()
        }
    }
}

/// A small deterministic generator (SplitMix64), so every run of the demo is the same session.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    mutating func next(below bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}
