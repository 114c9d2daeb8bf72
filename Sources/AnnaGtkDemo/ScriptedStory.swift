import AnnaGtk
import CGtk

/// The story the kit demo tells, played on the GTK window by emitting what a user's clicks and
/// activations emit.
struct ScriptedStory {
    let shop: ShopWindow

    func play() {
        shop.present()
        // Open the socks (row 7), add them to the cart, come back.
        activateRow(7)
        tapPushedButton()
        shop.back()
        // Open the beanie (row 6), add two, come back: the badge shows 3.
        activateRow(6)
        tapPushedButton()
        tapPushedButton()
        shop.back()
        // Open the cart and check out.
        GtkScript.emit("clicked", on: shop.cartButton)
        tapPushedButton()
        shop.back()
    }

    private func activateRow(_ index: Int32) {
        guard let row = gtk_list_box_get_row_at_index(OpaquePointer(shop.products), index) else { return }
        GtkScript.emit("row-activated", on: shop.products, UnsafeMutableRawPointer(row).assumingMemoryBound(to: GtkWidget.self))
    }

    private func tapPushedButton() {
        guard let button = shop.pushed?.button else { return }
        GtkScript.emit("clicked", on: button)
    }
}
