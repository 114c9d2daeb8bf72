// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Anna",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Anna", targets: ["Anna"]),
        .library(name: "CoreJS", targets: ["CoreJS"]),
        .library(name: "AnnaKit", targets: ["AnnaKit"]),
        .library(name: "AnnaGtk", targets: ["AnnaGtk"]),
        .library(name: "AnnaOutbox", targets: ["AnnaOutbox"]),
        .library(name: "AnnaInspector", targets: ["AnnaInspector"]),
        .executable(name: "anna", targets: ["anna"]),
    ],
    // An app that needs only the `Anna` product turns the default traits off
    // (`.package(url: …, traits: [])`) and fetches swift-collections and swift-log alone: SwiftPM
    // resolves the packages of every product's targets, except those behind a disabled trait.
    // All traits are on by default, so this repository builds and tests everything.
    traits: [
        .default(enabledTraits: ["Outbox", "Inspector", "Tools", "Gtk"]),
        .trait(name: "Outbox", description: "The AnnaOutbox product: GRDB, AsyncHTTPClient, compress-nio, swift-crypto."),
        .trait(name: "Inspector", description: "The AnnaInspector product: Hummingbird."),
        // Without it, SwiftPM reads GTK's pkg-config flags (and warns about them) even in the
        // build of an app that uses Anna alone.
        .trait(name: "Gtk", description: "The AnnaGtk product: GTK 4's C API (libgtk-4-dev)."),
        .trait(
            name: "Tools", description: "The `anna` command: ArgumentParser, with the outbox and the inspector.",
            enabledTraits: ["Outbox", "Inspector"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // `make docs` (generate-documentation); used by no target, so no app fetches it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // C interop: WebKitGTK's JavaScriptCore C API, found through pkg-config.
        .systemLibrary(
            name: "CJavaScriptCore",
            pkgConfig: "javascriptcoregtk-4.1",
            providers: [.apt(["libjavascriptcoregtk-4.1-dev"])]
        ),
        // GTK 4's C API, for AnnaGtk alone: an app that does not use AnnaGtk never needs its headers.
        .systemLibrary(name: "CGtk", pkgConfig: "gtk4", providers: [.apt(["libgtk-4-dev"])]),
        // Automatic capture for GTK 4 apps: named widgets as nodes, signals as events.
        .target(
            name: "AnnaGtk", dependencies: ["Anna", "CoreJS", .target(name: "CGtk", condition: .when(traits: ["Gtk"]))]),
        // A small GTK UI played through scenarios, for AnnaGtk's tests (run under Broadway).
        .executableTarget(
            name: "anna-gtk-fixture", dependencies: ["AnnaGtk", "Anna", "CoreJS", "CGtk"], path: "Tests/AnnaGtkFixture"),
        // What AnnaGtk costs a GTK app: hooked emissions, snapshots, a long list scrolled.
        .executableTarget(
            name: "anna-gtk-bench", dependencies: ["AnnaGtk", "Anna", "CGtk", "BenchStats"], path: "Benchmarks/AnnaGtkBench"),
        .testTarget(name: "AnnaGtkTests", dependencies: ["AnnaTestSupport", "anna-gtk-fixture", "anna-gtk-demo", "anna-demo", "anna"]),
        // The engine wrapper and the CommonJS runtime; the one target that imports CJavaScriptCore.
        .target(
            name: "CoreJS",
            dependencies: [
                "CJavaScriptCore",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ],
            resources: [.copy("Modules/commonjs-bootstrap.js"), .copy("TypeScript/typescript-transpile.js")]
        ),
        // The analytics host: loads analytics modules and the bundled JavaScript core (js/anna).
        .target(
            name: "Anna",
            dependencies: [
                "CoreJS",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The core lives at the top of the repository (js/anna, beside its tests' fixtures and
            // the docs that describe it); SwiftPM copies a resource from outside the target's
            // folder when given its relative path.
            resources: [.copy("../../js/anna"), .copy("Bridge/Scripts")]
        ),
        // Helpers every test target shares (temporary folders, a recording delegate, the
        // repository's fixtures); in no product, so an app that uses Anna never builds it.
        .target(
            name: "AnnaTestSupport",
            dependencies: ["Anna", "CoreJS", .product(name: "Logging", package: "swift-log")],
            path: "Tests/AnnaTestSupport",
            resources: [.copy("../../fixtures")]
        ),
        .testTarget(name: "CoreJSTests", dependencies: ["CoreJS", "AnnaTestSupport"]),
        .testTarget(
            name: "AnnaTests",
            dependencies: ["Anna", "CoreJS", "AnnaTestSupport", "anna-exit-helper"],
            resources: [.copy("js-anna")]
        ),
        // A headless UIKit-like responder kit (application, views, controllers, tables) over Anna.
        .target(name: "AnnaKit", dependencies: ["Anna"]),
        .testTarget(
            name: "AnnaKitTests",
            dependencies: ["AnnaKit", "Anna", "CoreJS", "AnnaTestSupport"],
            resources: [.copy("Fixtures")]
        ),
        // The runnable example: a small shop app driven through a scripted session.
        // Its analytics module is bundled as an app would bundle its own: a folder resource
        // (the demo's lives in fixtures/, beside the session recorded from it).
        .executableTarget(
            name: "anna-demo", dependencies: ["AnnaKit", "Anna", "CoreJS", "DemoCatalog"], path: "Sources/AnnaDemo",
            resources: [.copy("../../fixtures/demo/module")]
        ),
        // The demo shop's products, shared by the kit demo and the GTK demo.
        .target(name: "DemoCatalog"),
        // The same shop as a real GTK 4 app, captured by AnnaGtk, with a scripted mode.
        .executableTarget(
            name: "anna-gtk-demo", dependencies: ["AnnaGtk", "Anna", "CoreJS", "CGtk", "DemoCatalog"],
            path: "Sources/AnnaGtkDemo", resources: [.copy("../../fixtures/demo/module")]
        ),
        // The durable outbox: results kept in SQLite (GRDB) and uploaded by HTTP (AsyncHTTPClient).
        // Its own target, so an app that only needs Anna builds neither.
        .target(
            name: "AnnaOutbox",
            dependencies: [
                "Anna", "CoreJS",
                .product(name: "GRDB", package: "GRDB.swift", condition: .when(traits: ["Outbox"])),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["Outbox"])),
                .product(name: "CompressNIO", package: "compress-nio", condition: .when(traits: ["Outbox"])),
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["Outbox"])),
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The connection cap that the collector and the inspector's server share (Hummingbird).
        .target(
            name: "AnnaServing",
            dependencies: [.product(name: "HummingbirdCore", package: "hummingbird", condition: .when(traits: ["Inspector"]))]
        ),
        // The development collector behind `anna collect` (Hummingbird), with failure injection.
        .target(
            name: "AnnaCollector",
            dependencies: [
                "AnnaOutbox",
                "AnnaServing",
                "CoreJS",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Inspector"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Inspector"])),
                .product(name: "UnixSignals", package: "swift-service-lifecycle", condition: .when(traits: ["Inspector"])),
                .product(name: "GRDB", package: "GRDB.swift", condition: .when(traits: ["Outbox"])),
                .product(name: "CompressNIO", package: "compress-nio", condition: .when(traits: ["Outbox"])),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // A child process for the kill tests: appends or uploads until it is SIGKILLed.
        .executableTarget(
            name: "anna-outbox-crash-helper", dependencies: ["AnnaOutbox", "Anna"],
            path: "Tests/AnnaOutboxCrashHelper"
        ),
        // A child process for the exit tests: records through a manager, then returns from main or
        // calls exit() without flushing.
        .executableTarget(
            name: "anna-exit-helper", dependencies: ["AnnaOutbox", "Anna"],
            path: "Tests/AnnaExitHelper"
        ),
        .testTarget(
            name: "AnnaOutboxTests",
            dependencies: [
                "AnnaOutbox", "AnnaCollector", "Anna", "CoreJS", "AnnaTestSupport", "anna-outbox-crash-helper",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The inspector (Hummingbird): a page, a JSON API and an event stream showing a running
        // manager or a replayed stream; `anna inspect` and `anna report` are built on it.
        .target(
            name: "AnnaInspector",
            dependencies: [
                "Anna", "AnnaServing", "CoreJS",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Inspector"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Inspector"])),
                .product(name: "UnixSignals", package: "swift-service-lifecycle", condition: .when(traits: ["Inspector"])),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Page")]
        ),
        .testTarget(
            name: "AnnaInspectorTests",
            dependencies: [
                "AnnaInspector", "Anna", "CoreJS", "AnnaTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        // The `anna` command: replay event streams, snapshots, traces, task checks.
        .target(
            name: "AnnaCLI",
            dependencies: [
                "Anna", "CoreJS", "AnnaOutbox", "AnnaCollector", "AnnaInspector",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tools"])),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .executableTarget(name: "anna", dependencies: ["AnnaCLI"]),
        // Medians and percentiles, shared by both benchmarks.
        .target(name: "BenchStats", path: "Benchmarks/BenchStats"),
        // The benchmark (`make bench`): throughput, scale, soak and latency of the host path.
        .executableTarget(
            name: "anna-bench",
            dependencies: [
                "Anna", "CoreJS", "AnnaOutbox", "AnnaCollector", "AnnaInspector", "BenchStats",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            path: "Benchmarks/AnnaBench"
        ),
        .testTarget(
            name: "AnnaCLITests",
            dependencies: ["AnnaCLI", "Anna", "CoreJS", "AnnaTestSupport", "anna", "anna-demo", "anna-bench"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
