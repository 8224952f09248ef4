import ArgumentParser

/// The commands about images and resources.
enum ImageCommands {
    static let all: [any ParsableCommand.Type] = [
        PhotoLibCommand.Get.self, PhotoLibCommand.Resources.self, PhotoLibCommand.Export.self,
        PhotoLibCommand.ContactSheet.self, PhotoLibCommand.Bench.self,
    ]
}
