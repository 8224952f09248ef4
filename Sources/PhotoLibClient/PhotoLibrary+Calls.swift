@_exported import PhotoLibWire

extension PhotoLibrary {
    /// Calls any unary method of the protocol with its wire messages, on this connection
    /// (with its flow control, deadlines and cancellation): for tools and benchmarks that
    /// need what the PhotoKit-shaped API does not expose, such as a count-only fetch
    /// (`prefetch_count` 0). A request of the wrong type for `method` does not compile.
    ///
    /// ```swift
    /// let snapshot = try await library.call(PhotoLibraryMethods.fetchAssets, Wire.FetchAssetsRequest(prefetchCount: 0))
    /// print(snapshot.count)
    /// ```
    ///
    /// A non-OK STATUS is thrown as `PhotoLibError`; `timeout` defaults to the
    /// configuration's call timeout.
    public func call<Request, Response>(
        _ method: MethodDescriptor<Request, Response, CallKinds.Unary>, _ request: Request, timeout: Double? = nil
    ) async throws -> Response {
        try await connection.unary(method, request, timeout: timeout)
    }
}
