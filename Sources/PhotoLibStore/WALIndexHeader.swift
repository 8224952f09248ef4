/// One reading of a database's WAL-index header (the first 48 bytes of its `-shm` file),
/// compared whole: two equal readings mean no commit became visible between them
/// (``Database/walIndexHeader()``).
struct WALIndexHeader: Equatable {
    /// The header's 48 bytes as six words, in the machine's order (the format's own).
    let words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.words == rhs.words
    }
}
