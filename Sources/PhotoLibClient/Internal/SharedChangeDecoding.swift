import PhotoLibWire

/// What the subscriptions of one connection share when the server fans a change out to
/// them: it sends each the same bytes (docs/PROTOCOL.md, "Change feed"): the same details
/// between the same server snapshots (a live result's snapshot ids are the same for all its
/// subscribers). The last few events' bytes, their decoded values and the changes built from
/// them are kept, so the next subscription handed the same bytes takes them as they are: a
/// change reaching N subscriptions of a connection is decoded and built once, and they go on
/// sharing the ``FetchResult`` after it (one server snapshot, one client object).
///
/// Confined to the connection's queue (every ``ResponseConsumer`` runs there), hence
/// `@unchecked Sendable`. Bounded: ``capacity`` events of at most ``largestShared`` bytes.
final class SharedChangeDecoding: @unchecked Sendable {
    /// One event as received, decoded, and the change built from it (once one was).
    final class Entry {
        let payload: [UInt8]
        let event: Wire.SubscriptionEvent
        /// The change built from ``event``, the before-snapshots it was relative to (by id,
        /// `nil` where the subscription that built it knew none) and the after-snapshots it made.
        var change: (value: PhotoLibraryChange, before: [String: FetchResult<Asset>?], after: [String: FetchResult<Asset>])?

        init(payload: [UInt8], event: Wire.SubscriptionEvent) {
            self.payload = payload
            self.event = event
        }

        /// The change built from this event, for a subscription whose before-snapshots
        /// `current` gives; `nil` when none was built, or when it was built without a
        /// before-snapshot this subscription has (its objects seed the result after: that
        /// subscription builds the change, and the next ones share it).
        func sharedChange(current: (String) -> FetchResult<Asset>?) -> (value: PhotoLibraryChange, after: [String: FetchResult<Asset>])? {
            guard let change else { return nil }
            for (id, snapshot) in change.before where snapshot == nil && current(id) != nil { return nil }
            return (change.value, change.after)
        }
    }

    /// Events kept: the rounds of a few transactions, whose notifications to a connection's
    /// subscriptions may interleave.
    static let capacity = 8
    /// Larger events (resyncs, long object lists) are decoded for each subscription.
    static let largestShared = 64 << 10

    /// Most recent first.
    private var entries: [Entry] = []

    /// The event `payload` holds: decoded, or the one decoded from the same bytes recently.
    func entry(_ payload: [UInt8]) throws(PhotoLibError) -> Entry {
        if let index = entries.firstIndex(where: { $0.payload.count == payload.count && $0.payload == payload }) {
            let found = entries[index]
            if index > 0 {
                entries.remove(at: index)
                entries.insert(found, at: 0)
            }
            return found
        }
        let entry = Entry(payload: payload, event: try Wire.SubscriptionEvent(decoding: payload))
        guard payload.count <= Self.largestShared else { return entry }
        entries.insert(entry, at: 0)
        if entries.count > Self.capacity { entries.removeLast() }
        return entry
    }
}
