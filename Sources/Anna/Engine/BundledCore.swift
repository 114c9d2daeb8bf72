import Foundation

/// The JavaScript core shipped inside this package (the `js/anna` folder, copied as a resource).
public enum BundledCore {
    /// The folder of the bundled core (`…/anna`, with `package.json` and `index.js`).
    public static var folderURL: URL {
        // SwiftPM's generated `Bundle.module` stops the program itself when the bundle is
        // missing, so a found bundle always has a resource URL.
        // swift-format-ignore: NeverForceUnwrap
        Bundle.module.resourceURL!.appendingPathComponent("anna", isDirectory: true)
    }
}
