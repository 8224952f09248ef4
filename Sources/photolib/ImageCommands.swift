import ArgumentParser

/// The commands about images and resources (`get`, and later `resources`, `export`…).
enum ImageCommands {
    static let all: [any ParsableCommand.Type] = [PhotoLibCommand.Get.self]
}
