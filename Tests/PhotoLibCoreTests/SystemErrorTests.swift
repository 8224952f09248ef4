import Foundation
import PhotoLibCore
import Testing

@Suite("errno as an error value")
struct SystemErrorTests {
    @Test("each errno class gets its status code, its text and the errno as the cause")
    func codes() {
        let cases: [(Int32, StatusCode, String)] = [
            (ENOSPC, .resourceExhausted, "free disk space"), (EACCES, .failedPrecondition, "permissions"),
            (ENOENT, .notFound, "No such file"), (EEXIST, .alreadyExists, "exists"), (EIO, .unavailable, "disk reported"),
            (EMFILE, .resourceExhausted, "open files"), (EBADF, .internalError, "errno \(EBADF)"),
        ]
        for (errno, code, words) in cases {
            let error = SystemError(errno: errno, action: "write /library/x.jpg").photoLibError
            #expect(error.code == code, "errno \(errno)")
            #expect(error.message.hasPrefix("cannot write /library/x.jpg: "), "\(error.message)")
            #expect(error.message.contains(words), "\(error.message)")
            #expect(error.cause == PhotoLibError.Cause(domain: .posix, code: errno, message: SystemError.text(errno)))
        }
        #expect(SystemError(errno: ENOENT, action: "open a").description == "cannot open a: No such file or directory (errno \(ENOENT))")
    }
}
