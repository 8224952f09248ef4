// swift-tools-version:6.0
//
// PhotoLib: Apple's PhotoKit photo-library model, served over the network.
// Data flows one way: bytes → frames → messages → values → handlers → library → events,
// and each target below imports only the targets beneath it.
import PackageDescription

let package = Package(
    name: "PhotoLib",
    platforms: [.macOS(.v15)],  // Mutex (Synchronization) needs macOS 15
    products: [
        .library(name: "PhotoLibClient", targets: ["PhotoLibClient"]),
        .executable(name: "photolibd", targets: ["photolibd"]),
        .executable(name: "photolib", targets: ["photolib"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.1.0"),
        // Only for `swift package generate-documentation` (DocC); no target depends on it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // MARK: System libraries (Debian -dev packages) and C shims.
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        // glibc's <sys/epoll.h>, which Swift's Glibc module leaves out (PhotoLibNet's event loops).
        .systemLibrary(name: "CEpoll"),
        .systemLibrary(
            name: "CProtobufC", pkgConfig: "libprotobuf-c",
            providers: [.apt(["libprotobuf-c-dev"])]),
        .target(
            name: "CPhotoLibProto", dependencies: ["CProtobufC"],
            exclude: ["version.txt"]),
        .target(
            name: "CPhotoLibJPEG",
            linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("m")]),
        .target(
            name: "CPhotoLibExif",
            linkerSettings: [.linkedLibrary("exif")]),
        // Still-image decoders beside JPEG; they share CPhotoLibJPEG's status codes, limits,
        // control and pixel buffer, so their output enters the JPEG pipeline unchanged.
        .target(
            name: "CPhotoLibHEIF", dependencies: ["CPhotoLibJPEG"],
            linkerSettings: [.linkedLibrary("heif"), .linkedLibrary("pthread")]),
        .target(
            name: "CPhotoLibPNG", dependencies: ["CPhotoLibJPEG"],
            linkerSettings: [.linkedLibrary("png16")]),
        .target(
            name: "CPhotoLibWebP", dependencies: ["CPhotoLibJPEG"],
            linkerSettings: [.linkedLibrary("webp")]),
        .target(name: "CPhotoLibSystem"),
        // TLS 1.3 over memory buffers and self-signed identities (OpenSSL 3: libssl-dev).
        .target(
            name: "CPhotoLibTLS",
            linkerSettings: [.linkedLibrary("ssl"), .linkedLibrary("crypto")]),
        // MOV/MP4 inspection and poster frames (FFmpeg: libavformat-dev libavcodec-dev
        // libswscale-dev libavutil-dev); shares CPhotoLibJPEG's control and image types.
        .target(
            name: "CPhotoLibVideo", dependencies: ["CPhotoLibJPEG"],
            linkerSettings: [
                .linkedLibrary("avformat"), .linkedLibrary("avcodec"), .linkedLibrary("swscale"),
                .linkedLibrary("avutil"),
            ]),

        // MARK: Swift modules, lowest first.
        .target(name: "PhotoLibCore"),
        .target(name: "PhotoLibTestSupport", dependencies: ["PhotoLibCore", "PhotoLibWire"], path: "Tests/PhotoLibTestSupport"),
        .target(name: "PhotoLibWire", dependencies: ["PhotoLibCore", "CPhotoLibProto"]),
        .target(name: "PhotoLibNet", dependencies: ["PhotoLibCore", "CEpoll", "CPhotoLibTLS"]),
        .target(
            name: "PhotoLibImaging",
            dependencies: ["PhotoLibCore", "CPhotoLibJPEG", "CPhotoLibExif"]),
        // HEIC, PNG, WebP and video (libheif, libpng, libwebp, FFmpeg) apart from JPEG: the client
        // renders filter recipes with PhotoLibImaging alone, so it neither links nor loads these.
        .target(
            name: "PhotoLibMedia",
            dependencies: ["PhotoLibCore", "PhotoLibImaging", "CPhotoLibJPEG", "CPhotoLibExif", "CPhotoLibHEIF", "CPhotoLibPNG", "CPhotoLibWebP", "CPhotoLibVideo"]),
        .target(
            name: "PhotoLibStore",
            dependencies: [
                "PhotoLibCore", "CSQLite",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .target(
            name: "PhotoLibServer",
            dependencies: [
                "PhotoLibCore", "PhotoLibWire", "PhotoLibNet", "PhotoLibStore", "PhotoLibImaging", "PhotoLibMedia", "CPhotoLibSystem",
                .product(name: "Logging", package: "swift-log"),
                // SHA-256 of the owner token and of image cache keys.
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .target(
            name: "PhotoLibClient",
            // Imaging: filter recipes render on the client with the server's code. Crypto: the
            // SHA-256 of exported files (writeData), computed as they are written.
            // CPhotoLibSystem: early writeback of exported files (sync_file_range).
            dependencies: [
                "PhotoLibCore", "PhotoLibWire", "PhotoLibNet", "PhotoLibImaging", "CPhotoLibSystem",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .executableTarget(
            name: "photolibd",
            dependencies: [
                "PhotoLibServer", "PhotoLibStore", "PhotoLibImaging", "PhotoLibMedia", "PhotoLibCore", "PhotoLibNet", "PhotoLibClient", "CPhotoLibSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .executableTarget(
            name: "photolib",
            dependencies: [
                "PhotoLibClient", "PhotoLibCore", "PhotoLibImaging",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]),
        // The README's "Use PhotoLibClient in your package" program, built with the package and
        // run by EndToEndTests.ExampleProgramTests.
        .executableTarget(
            name: "photolib-example", dependencies: ["PhotoLibClient"], path: "Sources/PhotoLibExample"),

        // MARK: Tests mirror the modules.
        .testTarget(name: "PhotoLibCoreTests", dependencies: ["PhotoLibCore", "PhotoLibTestSupport"]),
        .testTarget(name: "PhotoLibWireTests", dependencies: ["PhotoLibWire", "PhotoLibCore", "PhotoLibTestSupport"]),
        .testTarget(name: "PhotoLibNetTests", dependencies: ["PhotoLibNet", "PhotoLibCore", "PhotoLibTestSupport"]),
        // PhotoLibMedia's tests (Media/) share PhotoLibImaging's fixtures and reference decoder.
        .testTarget(name: "PhotoLibImagingTests", dependencies: ["PhotoLibImaging", "PhotoLibMedia", "PhotoLibCore", "PhotoLibTestSupport"]),
        .testTarget(
            name: "PhotoLibStoreTests",
            dependencies: ["PhotoLibStore", "PhotoLibCore", "PhotoLibTestSupport", .product(name: "Crypto", package: "swift-crypto")]),
        // The in-process transport harness: the real server over socket pairs.
        .target(
            name: "PhotoLibServerTestSupport",
            dependencies: [
                "PhotoLibServer", "PhotoLibStore", "PhotoLibNet", "PhotoLibCore", "PhotoLibTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/PhotoLibServerTestSupport"),
        .testTarget(
            name: "PhotoLibServerTests",
            dependencies: [
                "PhotoLibServer", "PhotoLibStore", "PhotoLibCore", "PhotoLibWire", "PhotoLibNet", "PhotoLibImaging", "PhotoLibMedia", "PhotoLibTestSupport", "PhotoLibServerTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "PhotoLibClientTests",
            // Imaging: the tests decode the JPEGs an edit commits.
            dependencies: ["PhotoLibClient", "PhotoLibCore", "PhotoLibNet", "PhotoLibServer", "PhotoLibImaging", "PhotoLibTestSupport", "PhotoLibServerTestSupport"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["PhotoLibClient", "PhotoLibCore", "PhotoLibTestSupport", "PhotoLibWire"]),
    ]
)

// Language settings shared by every Swift target.
for target in package.targets where target.type != .system && !target.name.hasPrefix("C") {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    target.swiftSettings = settings
}
