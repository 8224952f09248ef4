/// Bytes of an open file that a ``SocketChannel`` sends with `sendfile(2)`, from the page cache
/// to the socket, instead of bytes read into memory first (``SocketChannel/write(file:)``).
public struct FileRegion: Sendable {
    /// The open file. It must stay open while the region waits: ``owner`` keeps it so.
    public let descriptor: Int32
    /// Where the bytes start in the file.
    public var offset: Int
    /// How many bytes to send.
    public var count: Int
    /// The object that closes ``descriptor`` when released; held until the region is sent
    /// or dropped.
    public let owner: any AnyObject & Sendable

    /// `count` bytes of `descriptor` from `offset`, kept open by `owner`.
    public init(descriptor: Int32, offset: Int, count: Int, owner: any AnyObject & Sendable) {
        self.descriptor = descriptor
        self.offset = offset
        self.count = count
        self.owner = owner
    }
}
