/// Values keyed by stream id: the open calls of one connection, on either end.
///
/// A hash table with open addressing whose hash is the id itself: an id's home slot is its
/// low bits (`id & mask`), a collision takes the next free slot (linear probing), and a
/// removal moves the entries after it back into the hole (backward-shift deletion), so there
/// are no tombstones and churn never lengthens a probe. Stream ids are chosen by the client
/// and strictly increase (usually 1, 3, 5, …): while the open ones span no more ids than the
/// table has slots, each sits in its home slot, and a look-up is one comparison where
/// `Dictionary` hashed the id with SipHash first.
///
/// Size: the slots are a power of two (at least ``minimumCapacity``), doubled when more than
/// half of them would be taken and halved when fewer than an eighth are, so the table has
/// fewer than four times as many slots as the most entries it held at once, and comes back
/// down when they leave. Its entries are open streams, which the connection bounds (the
/// server's `ConnectionStateMachine.Configuration.maxConcurrentStreams`), and so is the
/// table. Ids whose low bits agree (a peer opening 1, 1025, 2049, … while each stays open)
/// share one probe chain: a look-up then compares at most one id per entry held, which the
/// same bound limits.
///
/// Any `UInt32` is a valid key. Iteration (``ids``, ``values`` or the table itself, as
/// `(id, value)` pairs) goes in slot order, which callers must not rely on, as with
/// `Dictionary`.
public struct StreamTable<Value> {
    /// The id of each slot's entry, or ``emptySlot``. A power of two of them, or none before
    /// the first insertion (and after ``removeAll(keepingCapacity:)``).
    @usableFromInline
    internal var slotIDs: [UInt64]
    /// The value of each slot's entry; `nil` exactly where ``slotIDs`` is ``emptySlot``.
    @usableFromInline
    internal var slotValues: [Value?]
    /// How many slots hold an entry.
    @usableFromInline
    internal var occupied: Int

    /// The slot count a table starts with at its first insertion.
    public static var minimumCapacity: Int { 8 }

    /// What ``slotIDs`` holds for a free slot: no `UInt32` widens to it.
    @usableFromInline
    internal static var emptySlot: UInt64 { .max }

    /// An empty table; it allocates nothing until the first insertion.
    @inlinable
    public init() {
        slotIDs = []
        slotValues = []
        occupied = 0
    }

    /// The number of entries.
    @inlinable
    public var count: Int { occupied }

    /// Whether the table has no entries.
    @inlinable
    public var isEmpty: Bool { occupied == 0 }

    /// The number of slots (entries plus free slots): 0 before the first insertion, then a
    /// power of two, doubled when more than half would be taken and halved when fewer than an
    /// eighth are.
    @inlinable
    public var capacity: Int { slotIDs.count }

    /// The value stored for stream `id`, or `nil`. Setting `nil` removes the entry. Modifying
    /// through it (`table[id]?.field = x`, `inout` access) changes the stored value in place,
    /// without copying it.
    @inlinable
    public subscript(id: UInt32) -> Value? {
        get {
            guard occupied > 0 else { return nil }
            let (index, found) = slot(of: id)
            return found ? slotValues[index] : nil
        }
        set {
            if slotIDs.isEmpty {
                if let newValue { insertIntoEmpty(id, newValue) }
                return
            }
            let (index, found) = slot(of: id)
            slotValues[index] = newValue
            settle(id, at: index, wasPresent: found)
        }
        _modify {
            if slotIDs.isEmpty {
                var value: Value? = nil
                defer {
                    if let value { insertIntoEmpty(id, value) }
                }
                yield &value
            } else {
                let (index, found) = slot(of: id)
                defer { settle(id, at: index, wasPresent: found) }
                yield &slotValues[index]
            }
        }
    }

    /// Removes the entry of stream `id` and returns its value, or `nil` when there was none.
    @inlinable
    @discardableResult
    public mutating func removeValue(forKey id: UInt32) -> Value? {
        guard occupied > 0 else { return nil }
        let (index, found) = slot(of: id)
        guard found else { return nil }
        let value = slotValues[index].take()
        occupied -= 1
        vacate(index)
        shrinkIfSparse()
        return value
    }

    /// Removes every entry. `keepingCapacity`: the slots stay allocated (a table emptied and
    /// refilled over and over; removals shrink it again); otherwise they are freed.
    @inlinable
    public mutating func removeAll(keepingCapacity: Bool = false) {
        if keepingCapacity {
            for index in slotIDs.indices where slotIDs[index] != Self.emptySlot {
                slotIDs[index] = Self.emptySlot
                slotValues[index] = nil
            }
        } else {
            slotIDs = []
            slotValues = []
        }
        occupied = 0
    }

    // MARK: Slots

    /// The slot holding `id` (`found`), or else the free slot that ends its probe chain, where
    /// it would go. The table must have slots; one of them is free, as at most half are taken.
    @inlinable
    internal func slot(of id: UInt32) -> (index: Int, found: Bool) {
        let mask = slotIDs.count &- 1
        let key = UInt64(id)
        var index = Int(truncatingIfNeeded: id) & mask
        while true {
            let slotID = slotIDs[index]
            if slotID == key { return (index, true) }
            if slotID == Self.emptySlot { return (index, false) }
            index = (index &+ 1) & mask
        }
    }

    /// After slot `index` (which held `id` when `wasPresent`, or was the free slot `id` would
    /// take) was given a value or `nil`: records an insertion or a removal.
    @inlinable
    internal mutating func settle(_ id: UInt32, at index: Int, wasPresent: Bool) {
        let isPresent = slotValues[index] != nil
        if wasPresent && !isPresent {
            occupied -= 1
            vacate(index)
            shrinkIfSparse()
        } else if !wasPresent && isPresent {
            slotIDs[index] = UInt64(id)
            occupied += 1
            if occupied > slotIDs.count / 2 { resize(to: slotIDs.count * 2) }
        }
    }

    /// The first insertion into a table without slots.
    @inlinable
    internal mutating func insertIntoEmpty(_ id: UInt32, _ value: Value) {
        resize(to: Self.minimumCapacity)
        let (index, _) = slot(of: id)
        slotIDs[index] = UInt64(id)
        slotValues[index] = value
        occupied += 1
    }

    /// Frees slot `index`, whose value is gone already: each entry after it in the same run of
    /// taken slots that may sit there (its home slot is not between the hole and itself) moves
    /// back into the hole, which moves on to where that entry was, until a free slot ends the
    /// run. Every entry stays reachable from its home slot without crossing a free slot.
    @inlinable
    internal mutating func vacate(_ index: Int) {
        let mask = slotIDs.count &- 1
        var hole = index
        var next = (index &+ 1) & mask
        while slotIDs[next] != Self.emptySlot {
            let home = Int(truncatingIfNeeded: slotIDs[next]) & mask
            // How far the entry at `next` sits from its home, and from the hole: when the hole
            // is no farther back than its home, it may move there.
            if (next &- home) & mask >= (next &- hole) & mask {
                slotIDs[hole] = slotIDs[next]
                slotValues.swapAt(hole, next)
                hole = next
            }
            next = (next &+ 1) & mask
        }
        slotIDs[hole] = Self.emptySlot
    }

    /// After a removal: halves the slots when fewer than an eighth of them are taken. Fewer
    /// than a quarter of the new ones are then, so a table that shrank takes many insertions
    /// before it grows again, and one that grew many removals before it shrinks: each entry
    /// moved by a resize pays for itself.
    @inlinable
    internal mutating func shrinkIfSparse() {
        if occupied < slotIDs.count / 8 && slotIDs.count > Self.minimumCapacity {
            resize(to: slotIDs.count / 2)
        }
    }

    /// Moves every entry into `capacity` new slots (a power of two, more than twice the entries).
    @inlinable
    internal mutating func resize(to capacity: Int) {
        var oldIDs = [UInt64](repeating: Self.emptySlot, count: capacity)
        var oldValues = [Value?](repeating: nil, count: capacity)
        swap(&oldIDs, &slotIDs)
        swap(&oldValues, &slotValues)
        for oldIndex in oldIDs.indices where oldIDs[oldIndex] != Self.emptySlot {
            let (index, _) = slot(of: UInt32(truncatingIfNeeded: oldIDs[oldIndex]))
            slotIDs[index] = oldIDs[oldIndex]
            slotValues[index] = oldValues[oldIndex].take()
        }
    }
}

extension StreamTable: Sendable where Value: Sendable {}

extension StreamTable: Sequence {
    /// Walks the entries in slot order, as `(id, value)` pairs.
    public struct Iterator: IteratorProtocol {
        @usableFromInline
        internal let table: StreamTable
        @usableFromInline
        internal var index = 0

        @inlinable
        internal init(table: StreamTable) {
            self.table = table
        }

        /// The next entry, or `nil` after the last.
        @inlinable
        public mutating func next() -> (id: UInt32, value: Value)? {
            while index < table.slotValues.count {
                let slot = index
                index += 1
                if let value = table.slotValues[slot] {
                    return (UInt32(truncatingIfNeeded: table.slotIDs[slot]), value)
                }
            }
            return nil
        }
    }

    /// An iterator over the entries as they are now; changing the table later does not
    /// change what it walks.
    @inlinable
    public func makeIterator() -> Iterator {
        Iterator(table: self)
    }

    /// The number of entries.
    @inlinable
    public var underestimatedCount: Int { occupied }

    /// The ids of the entries, in slot order.
    @inlinable
    public var ids: LazyMapSequence<StreamTable, UInt32> {
        lazy.map { $0.id }
    }

    /// The values of the entries, in slot order.
    @inlinable
    public var values: LazyMapSequence<StreamTable, Value> {
        lazy.map { $0.value }
    }
}

extension StreamTable.Iterator: Sendable where Value: Sendable {}
