import Anna
import AnnaGtk
import CGtk
import Foundation

/// The UIs and stories the tests check.
enum Scenario: String {
    /// A window appears and is hidden: parents first in, children first out.
    case appear
    /// A named button is clicked, an unnamed one too.
    case click
    /// A row is activated and a stack switches to a detail page: the page hangs under the row.
    case focus
    /// A check button, a switch, a scale and an entry change value.
    case values
    /// A window is destroyed from a click's handler; another click follows.
    case destroy
    /// Clicks before and after ``GtkCapture/uninstall()``.
    case uninstall
    /// A page hidden and shown again keeps its node.
    case reshow
    /// A list view's rows (a signal factory's `item` labels), one activated; a button named by
    /// its id in a `.ui` file, clicked.
    case listView
    /// A list view's model replaced by a shorter one under it, then a row of the new one activated.
    case modelReplaced
    /// With screenshots on: a window with a stack, its page switched; a window with a notebook,
    /// its tab switched. Each waits for the pictures before going on.
    case screens
    /// With screenshots limited to one picture: the shop shown, its page switched.
    case screensLimited
    /// With screenshots on: a window with libadwaita's view stack (loaded at run time), its
    /// page switched.
    case viewStack

    /// The capture's options for the scenario, `recording` being where the manager records.
    func options(recording: URL) -> GtkCapture.Options {
        var options = GtkCapture.Options()
        switch self {
        case .screens, .viewStack: options.screenshots = .init(folder: ScreenshotIndex.folder(besideRecording: recording))
        case .screensLimited:
            var screenshots = GtkCapture.Screenshots(folder: ScreenshotIndex.folder(besideRecording: recording))
            screenshots.maxCount = 1
            options.screenshots = screenshots
        default: break
        }
        return options
    }

    func play(capture: GtkCapture) {
        /// Runs GTK until every window waiting for its paint is pictured (Broadway paints about once a second).
        func pictured() {
            GtkScript.settle(until: { capture.pendingScreenshots == 0 }, timeoutMilliseconds: 5000)
        }
        switch self {
        case .appear:
            let shop = Shop()
            shop.present()
            gtk_widget_set_visible(shop.window, 0)
            GtkScript.settle()
        case .click:
            let shop = Shop()
            shop.present()
            GtkScript.emit("clicked", on: shop.cart)
            GtkScript.emit("clicked", on: shop.unnamedButton)
        case .focus:
            let shop = Shop()
            shop.present()
            GtkScript.emit("row-activated", on: shop.products, shop.row(1))
            gtk_stack_set_visible_child_name(OpaquePointer(shop.stack), "detail")
            GtkScript.settle()
        case .values:
            let shop = Shop()
            shop.present()
            gtk_check_button_set_active(cast(shop.gift, GtkCheckButton.self), 1)
            gtk_switch_set_active(OpaquePointer(shop.express), 1)
            gtk_range_set_value(cast(shop.quantity, GtkRange.self), 3)
            for text in ["s", "so", "soc", "sock", "socks"] {
                gtk_editable_set_text(OpaquePointer(shop.search), text)
            }
            GtkScript.settle(milliseconds: 700)
        case .destroy:
            let shop = Shop()
            shop.present()
            g_signal_connect_data(
                shop.cart, "clicked", unsafeBitCast(Shop.destroyWindow, to: GCallback.self), shop.window, nil, GConnectFlags(0))
            GtkScript.emit("clicked", on: shop.cart)
            GtkScript.settle()
            let other = Shop(windowName: "other")
            other.present()
            GtkScript.emit("clicked", on: other.cart)
        case .uninstall:
            let shop = Shop()
            shop.present()
            GtkScript.emit("clicked", on: shop.cart)
            capture.uninstall()
            GtkScript.emit("clicked", on: shop.cart)
            capture.uninstall()
        case .listView:
            let catalog = Catalog()
            catalog.present()
            GtkScript.emit("activate", on: catalog.view, position: 2)
            GtkScript.emit("clicked", on: catalog.uiButton)
        case .modelReplaced:
            let catalog = Catalog()
            catalog.present()
            let model = gtk_string_list_new(nil)
            for name in ["Hat", "Sock"] { gtk_string_list_append(model, name) }
            gtk_list_view_set_model(OpaquePointer(catalog.view), gtk_no_selection_new(model))
            GtkScript.settle()
            GtkScript.emit("activate", on: catalog.view, position: 1)
        case .viewStack:
            let views = ViewStackWindow()
            views.present()
            pictured()
            views.show("sent")
            pictured()
        case .screens, .screensLimited:
            let shop = Shop()
            shop.present()
            pictured()
            gtk_stack_set_visible_child_name(OpaquePointer(shop.stack), "detail")
            pictured()
            guard self == .screens else { return }
            let tabs = Tabs()
            tabs.present()
            pictured()
            gtk_notebook_set_current_page(OpaquePointer(tabs.notebook), 1)
            pictured()
        case .reshow:
            let shop = Shop()
            shop.present()
            gtk_stack_set_visible_child_name(OpaquePointer(shop.stack), "detail")
            GtkScript.settle()
            gtk_stack_set_visible_child_name(OpaquePointer(shop.stack), "home")
            GtkScript.settle()
        }
    }
}

/// A window `shop` with a stack of two pages: `home` (a `cart` button, an unnamed button, a
/// list `products` of rows named `cell` with a label `title`, and value widgets) and `detail`.
struct Shop {
    let window: GtkWidgetPointer
    let stack: GtkWidgetPointer
    let cart: GtkWidgetPointer
    let unnamedButton: GtkWidgetPointer
    let products: GtkWidgetPointer
    let gift: GtkWidgetPointer
    let express: GtkWidgetPointer
    let quantity: GtkWidgetPointer
    let search: GtkWidgetPointer

    init(windowName: String = "shop") {
        cart = named(gtk_button_new_with_label("Cart"), "cart")
        unnamedButton = unnamed(gtk_button_new_with_label("Help"))
        products = named(listBox(rows: ["Socks", "Beanie", "Scarf"], rowName: "cell", labelName: "title"), "products")
        gift = named(gtk_check_button_new_with_label("Gift"), "gift")
        express = named(gtk_switch_new(), "express")
        quantity = named(gtk_scale_new_with_range(GTK_ORIENTATION_HORIZONTAL, 1, 10, 1), "quantity")
        search = named(gtk_entry_new(), "search")
        let home = named(box(cart, unnamedButton, products, gift, express, quantity, search), "home")
        let detail = named(box(named(gtk_button_new_with_label("Add"), "add")), "detail")
        stack = unnamed(gtk_stack_new())
        gtk_stack_add_named(OpaquePointer(stack), home, "home")
        gtk_stack_add_named(OpaquePointer(stack), detail, "detail")
        window = makeWindow(windowName, child: box(stack))
    }

    func present() {
        gtk_window_present(cast(window, GtkWindow.self))
        GtkScript.settle()
    }

    func row(_ index: Int32) -> GtkWidgetPointer {
        guard let row = gtk_list_box_get_row_at_index(OpaquePointer(products), index) else { fatalError("no row \(index)") }
        return UnsafeMutableRawPointer(row).assumingMemoryBound(to: GtkWidget.self)
    }

    /// A `clicked` handler that destroys the window passed as its data.
    static let destroyWindow: @convention(c) (gpointer?, gpointer?) -> Void = { _, window in
        guard let window else { return }
        gtk_window_destroy(window.assumingMemoryBound(to: GtkWindow.self))
    }
}

/// A window `tabs` with a notebook `notebook` of two pages, `first` and `second` (each a box
/// with a named label).
struct Tabs {
    let window: GtkWidgetPointer
    let notebook: GtkWidgetPointer

    init() {
        notebook = named(gtk_notebook_new(), "notebook")
        for name in ["first", "second"] {
            let page = named(box(named(gtk_label_new("The \(name) tab"), "text")), name)
            gtk_notebook_append_page(OpaquePointer(notebook), page, gtk_label_new(name))
        }
        window = makeWindow("tabs", child: notebook)
    }

    func present() {
        gtk_window_present(cast(window, GtkWindow.self))
        GtkScript.settle()
    }
}

/// A window `views` holding libadwaita's `AdwViewStack` named `sections`, with pages `inbox`
/// and `sent`. libadwaita is loaded at run time (`libadwaita-1-0`): nothing else of the package
/// needs it.
struct ViewStackWindow {
    let window: GtkWidgetPointer
    let stack: GtkWidgetPointer
    private let setVisible: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Void

    init() {
        guard let library = dlopen("libadwaita-1.so.0", RTLD_NOW) else {
            fatalError("anna-gtk-fixture: cannot load libadwaita-1.so.0 (apt install libadwaita-1-0)")
        }
        func function<Function>(_ name: String, _: Function.Type) -> Function {
            guard let symbol = dlsym(library, name) else { fatalError("libadwaita has no \(name)") }
            return unsafeBitCast(symbol, to: Function.self)
        }
        typealias Make = @convention(c) () -> UnsafeMutableRawPointer?
        typealias Add = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> UnsafeMutableRawPointer?
        function("adw_init", (@convention(c) () -> Void).self)()
        stack = named(function("adw_view_stack_new", Make.self)()?.assumingMemoryBound(to: GtkWidget.self), "sections")
        let add = function("adw_view_stack_add_named", Add.self)
        for name in ["inbox", "sent"] {
            _ = add(stack, named(box(named(gtk_label_new("The \(name) page"), "text")), name), name)
        }
        setVisible = function("adw_view_stack_set_visible_child_name", type(of: setVisible))
        window = makeWindow("views", child: stack)
    }

    func present() {
        gtk_window_present(cast(window, GtkWindow.self))
        GtkScript.settle()
    }

    func show(_ page: String) {
        setVisible(stack, page)
        GtkScript.settle()
    }
}

/// A window `catalog` with a list view `products` of five rows, each a label named `item`
/// made by a signal factory, and a button made from a `.ui` description with the id `more`.
struct Catalog {
    let window: GtkWidgetPointer
    let view: GtkWidgetPointer
    let uiButton: GtkWidgetPointer
    let builder: OpaquePointer

    init() {
        let model = gtk_string_list_new(nil)
        for name in ["Mug", "Tee", "Cap", "Bag", "Pen"] { gtk_string_list_append(model, name) }
        let factory = gtk_signal_list_item_factory_new()
        for (signal, handler) in [("setup", Self.setup), ("bind", Self.bind)] {
            g_signal_connect_data(
                UnsafeMutableRawPointer(factory), signal, unsafeBitCast(handler, to: GCallback.self), nil, nil, GConnectFlags(0))
        }
        let selection = gtk_no_selection_new(model)
        view = named(gtk_list_view_new(selection, factory), "products")
        builder = gtk_builder_new_from_string("<interface><object class=\"GtkButton\" id=\"more\"/></interface>", -1)
        uiButton = unnamed(UnsafeMutableRawPointer(gtk_builder_get_object(builder, "more"))?.assumingMemoryBound(to: GtkWidget.self))
        window = makeWindow("catalog", child: box(view, uiButton))
    }

    func present() {
        gtk_window_present(cast(window, GtkWindow.self))
        GtkScript.settle()
    }

    static let setup: @convention(c) (gpointer?, gpointer?, gpointer?) -> Void = { _, item, _ in
        gtk_list_item_set_child(OpaquePointer(item), named(gtk_label_new(""), "item"))
    }

    static let bind: @convention(c) (gpointer?, gpointer?, gpointer?) -> Void = { _, item, _ in
        guard let child = gtk_list_item_get_child(OpaquePointer(item)),
            let text = gtk_string_object_get_string(OpaquePointer(gtk_list_item_get_item(OpaquePointer(item))))
        else { return }
        gtk_label_set_text(OpaquePointer(child), text)
    }
}
