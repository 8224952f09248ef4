import PhotoLibWire

/// What the subscriptions of one connection share when the server fans a change out to
/// them: it sends each the same bytes (docs/PROTOCOL.md, "Change feed"): the same details
/// between the same server snapshots (a live result's snapshot ids are the same for all its
/// subscribers). The last event's bytes, its decoded value, and the change built from it are
/// kept, so the next subscription handed the same bytes takes them as they are: a change
/// reaching N subscriptions of a connection is decoded and built once, and they go on
/// sharing the ``FetchResult`` after it (one server snapshot, one client object).
///
/// Confined to the connection's queue (every ``ResponseConsumer`` runs there), hence
/// `@unchecked Sendable`; it holds one event at a time.
final class SharedChangeDecoding: @unchecked Sendable {
    /// The last event decoded, with its bytes.
    private var lastEvent: (payload: [UInt8], event: Wire.SubscriptionEvent)?
    /// The change built from ``lastEvent``, the before-snapshots it was relative to and the
    /// after-snapshots it made, by snapshot id.
    private var lastChange: (change: PhotoLibraryChange, before: [String: FetchResult<Asset>?], after: [String: FetchResult<Asset>])?

    /// `payload` decoded, or the event decoded from the same bytes just before.
    func event(_ payload: [UInt8]) throws(PhotoLibError) -> Wire.SubscriptionEvent {
        if let last = lastEvent, last.payload.count == payload.count, last.payload == payload { return last.event }
        let event = try Wire.SubscriptionEvent(decoding: payload)
        lastEvent = (payload, event)
        lastChange = nil
        return event
    }

    /// The change built from the current event (the last ``event(_:)`` decoded), for a
    /// subscription whose before-snapshots `current` gives; `nil` when none was built, or
    /// when it was built without a before-snapshot this subscription has (its objects seed
    /// the result after: that subscription builds the change, and the next ones share it).
    func sharedChange(current: (String) -> FetchResult<Asset>?) -> (change: PhotoLibraryChange, after: [String: FetchResult<Asset>])? {
        guard let last = lastChange else { return nil }
        for (id, snapshot) in last.before where snapshot == nil && current(id) != nil { return nil }
        return (last.change, last.after)
    }

    /// `change` was built from the current event against the `before` snapshots (by id,
    /// `nil` where the subscription knew none) and made the `after` ones.
    func remember(_ change: PhotoLibraryChange, before: [String: FetchResult<Asset>?], after: [String: FetchResult<Asset>]) {
        lastChange = (change, before, after)
    }
}
