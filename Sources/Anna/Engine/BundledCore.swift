import Foundation

/// The JavaScript core shipped inside this package (the `js/anna` folder, copied as a resource).
public enum BundledCore {
    /// The folder of the bundled core (`…/anna`, with `package.json` and `index.js`).
    public static var folderURL: URL {
        Bundle.module.resourceURL!.appendingPathComponent("anna", isDirectory: true)
    }
}
