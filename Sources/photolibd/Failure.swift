import ArgumentParser
import Foundation

/// How `photolibd` ends on a failure: one line on standard error saying what failed and why,
/// and exit status 1. (Usage errors keep ArgumentParser's status 64 and its help text.)
enum Failure {
    /// Writes `message` as one line to standard error; throw the result to exit with status 1.
    static func exit(_ message: String) -> ExitCode {
        let line = message.replacingOccurrences(of: "\n", with: " ") + "\n"
        FileHandle.standardError.write(Data(line.utf8))
        return ExitCode.failure
    }
}
