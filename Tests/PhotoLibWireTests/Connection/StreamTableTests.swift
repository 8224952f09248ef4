import PhotoLibTestSupport
import XCTest

@testable import PhotoLibWire

/// The stream table against `Dictionary`, the type it replaces: random operations, probe
/// chains that wrap around the end of the slots, removals from the middle of a chain, growth
/// and shrinking, and changes made in place.
final class StreamTableTests: XCTestCase {
    /// Random insertions (of increasing ids, as clients open calls, and of any id), updates,
    /// in-place changes, removals and look-ups leave the table equal to a `Dictionary` given
    /// the same operations: the id each step touched at once, the whole table every few steps.
    func testRandomOperationsAgreeWithADictionary() {
        // The first difference names the seed and step; what follows it would only repeat it.
        continueAfterFailure = false
        for seed: UInt64 in 1...24 {
            var generator = SplitMix64(seed: seed)
            var table = StreamTable<Int>()
            var model: [UInt32: Int] = [:]
            var nextID: UInt32 = seed % 2 == 0 ? 1 : UInt32.max - 300  // the second: ids that wrap past UInt32.max
            // About a dozen open at once, as on a connection; or, with every fourth seed, first
            // hundreds and then a few: the table grows, then shrinks.
            let manyThenFew = seed % 4 == 0
            var largestCapacity = 0
            for step in 0..<(manyThenFew ? 3000 : 2000) {
                let existing = model.keys.randomElement(using: &generator)
                var touched = existing
                let value = Int.random(in: 0..<1_000_000, using: &generator)
                let typicalCount = manyThenFew ? (step < 1500 ? 400 : 6) : 12
                // Above it, removals (7 and up) outnumber insertions (0 to 3).
                let removing = model.count > typicalCount
                switch Int.random(in: 0..<(removing ? 20 : 8), using: &generator) {
                case 0, 1, 2:
                    // The next call, as a client opens them (ids 1, 3, 5, …).
                    nextID &+= 2
                    table[nextID] = value
                    model[nextID] = value
                    touched = nextID
                case 3:
                    // Any id, or one that shares its low bits with an open one (same home slot).
                    let id = Bool.random(using: &generator) || existing == nil
                        ? UInt32.random(in: 0...UInt32.max, using: &generator)
                        : existing! &+ UInt32(table.capacity) &* UInt32.random(in: 1...3, using: &generator)
                    table[id] = value
                    model[id] = value
                    touched = id
                case 4:
                    guard let id = existing else { continue }
                    table[id] = value
                    model[id] = value
                case 5:
                    guard let id = existing else { continue }
                    table[id]? += 1
                    model[id]? += 1
                case 6:
                    // A look-up of an id that is probably absent.
                    let id = UInt32.random(in: 0...UInt32.max, using: &generator)
                    touched = id
                    XCTAssertEqual(table[id], model[id], "seed \(seed), step \(step)")
                    XCTAssertEqual(table.removeValue(forKey: id), model.removeValue(forKey: id), "seed \(seed), step \(step)")
                case 7, 8, 9:
                    guard let id = existing else { continue }
                    XCTAssertEqual(table.removeValue(forKey: id), model.removeValue(forKey: id), "seed \(seed), step \(step)")
                default:
                    guard let id = existing else { continue }
                    table[id] = nil
                    model[id] = nil
                }
                if let touched { XCTAssertEqual(table[touched], model[touched], "seed \(seed), step \(step), id \(touched)") }
                XCTAssertEqual(table.count, model.count, "seed \(seed), step \(step)")
                if step % 16 == 0 { assertEqual(table, model, "seed \(seed), step \(step)") }
                largestCapacity = max(largestCapacity, table.capacity)
            }
            assertEqual(table, model, "seed \(seed), at the end")
            if manyThenFew {
                XCTAssertGreaterThanOrEqual(largestCapacity, 512, "seed \(seed): grew")
                XCTAssertLessThanOrEqual(table.capacity, 64, "seed \(seed): shrank")
            }
        }
    }

    /// Ids whose home slot is the last one fill slots 7, 0, 1, …: removing the first moves the
    /// others back across the end, and each stays findable.
    func testRemovalRepairsAChainThatWrapsAround() throws {
        var table = StreamTable<String>()
        table[7] = "a"
        XCTAssertEqual(table.capacity, 8)
        table[15] = "b"
        table[23] = "c"
        table[8] = "d"  // home slot 0, which 15 took: lands after 23
        XCTAssertEqual(table.capacity, 8, "half full: no growth yet")
        XCTAssertEqual(try slots(of: table), [0: 15, 1: 23, 2: 8, 7: 7])

        XCTAssertEqual(table.removeValue(forKey: 7), "a")
        XCTAssertEqual(try slots(of: table), [7: 15, 0: 23, 1: 8], "each moved back one slot")
        XCTAssertEqual(table[15], "b")
        XCTAssertEqual(table[23], "c")
        XCTAssertEqual(table[8], "d")
        XCTAssertNil(table[7])
        XCTAssertEqual(table.count, 3)
    }

    /// An entry after the hole whose home slot lies between the hole and itself must stay: it
    /// would not be found before its home. The entries after it that may move still do.
    func testRemovalLeavesAnEntryThatSitsAtItsHome() throws {
        var table = StreamTable<String>()
        table[6] = "home 6"
        table[7] = "home 7"
        table[14] = "home 6, third in the chain"
        XCTAssertEqual(try slots(of: table), [6: 6, 7: 7, 0: 14])

        table[6] = nil
        XCTAssertEqual(try slots(of: table), [6: 14, 7: 7])
        XCTAssertEqual(table[7], "home 7")
        XCTAssertEqual(table[14], "home 6, third in the chain")
        XCTAssertNil(table[6])
    }

    /// Removing from the middle of one chain keeps the entries of a chain that runs into it
    /// findable.
    func testRemovalInsideMergedChains() throws {
        var table = StreamTable<Int>()
        for id: UInt32 in [1, 9, 2, 10] { table[id] = Int(id) }  // slots 1, 2, 3, 4
        XCTAssertEqual(try slots(of: table), [1: 1, 2: 9, 3: 2, 4: 10])
        table.removeValue(forKey: 9)
        XCTAssertEqual(try slots(of: table), [1: 1, 2: 2, 3: 10])
        for id: UInt32 in [1, 2, 10] { XCTAssertEqual(table[id], Int(id)) }
        XCTAssertNil(table[9])
    }

    /// Calls opened one after another while a few stay open (the usual connection): each sits
    /// in its home slot, and the table stays at the size their number needs.
    func testSequentialIDsKeepTheirHomeSlots() throws {
        var table = StreamTable<UInt32>()
        var id: UInt32 = 1
        for _ in 0..<16 {
            table[id] = id
            id += 2
        }
        XCTAssertEqual(table.capacity, 32)
        for _ in 0..<10_000 {
            table.removeValue(forKey: id - 32)
            table[id] = id
            id += 2
            XCTAssertEqual(table.count, 16)
        }
        XCTAssertEqual(table.capacity, 32, "the same number open: neither grown nor shrunk")
        for (slot, id) in try slots(of: table) {
            XCTAssertEqual(slot, Int(id) & 31, "id \(id) sits in its home slot")
        }
    }

    /// The table doubles when more than half its slots would be taken and halves when fewer
    /// than an eighth are: its size follows the number of entries, both ways.
    func testGrowsAndShrinksWithItsEntries() {
        var table = StreamTable<Int>()
        XCTAssertEqual(table.capacity, 0, "nothing allocated before the first insertion")
        for id in 1...1000 {
            table[UInt32(id)] = id
            XCTAssertGreaterThanOrEqual(table.capacity, 2 * table.count)
            XCTAssertTrue(table.capacity == StreamTable<Int>.minimumCapacity || table.capacity < 4 * table.count)
            XCTAssertEqual(table.capacity & (table.capacity - 1), 0, "a power of two")
        }
        XCTAssertEqual(table.capacity, 2048)
        for id in 1...1000 {
            XCTAssertEqual(table.removeValue(forKey: UInt32(id)), id)
            XCTAssertGreaterThanOrEqual(table.capacity, 2 * table.count)
            XCTAssertTrue(table.capacity <= StreamTable<Int>.minimumCapacity || table.count >= table.capacity / 8)
            if id < 1000 {
                XCTAssertEqual(table[UInt32(id + 1)], id + 1)
                XCTAssertEqual(table[1000], 1000)
            }
        }
        XCTAssertTrue(table.isEmpty)
        XCTAssertEqual(table.capacity, StreamTable<Int>.minimumCapacity)
    }

    /// Any `UInt32` is a key, the smallest and the largest included.
    func testEveryIDIsAKey() {
        var table = StreamTable<String>()
        table[0] = "zero"
        table[UInt32.max] = "max"
        table[8] = "eight"  // home slot 0, like 0
        XCTAssertEqual(table[0], "zero")
        XCTAssertEqual(table[UInt32.max], "max")
        XCTAssertEqual(table[8], "eight")
        XCTAssertNil(table[UInt32.max - 1])
        table[0] = nil
        XCTAssertEqual(table[8], "eight")
        XCTAssertEqual(table.count, 2)
    }

    /// Changing a stored value through the subscript changes it where it is stored: a class
    /// instance inside it is uniquely referenced during the change, and an array in it grows
    /// in its own buffer (a copy of the value would share both, and the append would copy).
    func testChangesAStoredValueInPlace() {
        var table = StreamTable<Box>()
        for id: UInt32 in 1...5 { table[id] = Box() }
        table[3]?.items.reserveCapacity(64)
        let buffer = table[3]?.items.withUnsafeBufferPointer { $0.baseAddress }

        XCTAssertEqual(table[3]?.referenceIsUnique(), true)
        for item in 0..<50 { table[3]?.items.append(item) }
        XCTAssertEqual(table[3]?.items.withUnsafeBufferPointer { $0.baseAddress }, buffer, "appended in place")
        Self.touch(&table[3])
        XCTAssertEqual(table[3]?.touched, 1)
        XCTAssertEqual(table[3]?.items.count, 50)
        XCTAssertEqual(table[3]?.items.withUnsafeBufferPointer { $0.baseAddress }, buffer)
    }

    /// `inout` access inserts where there was no entry (also into a table without slots) and
    /// removes when it leaves `nil`.
    func testInoutAccessInsertsAndRemoves() {
        var table = StreamTable<Int>()
        Self.setOptional(&table[5], to: 50)
        XCTAssertEqual(table[5], 50)
        XCTAssertEqual(table.count, 1)
        Self.setOptional(&table[13], to: 130)  // home slot 5 too
        Self.setOptional(&table[7], to: nil)  // absent: nothing happens
        XCTAssertEqual(table.count, 2)
        Self.setOptional(&table[5], to: nil)
        XCTAssertNil(table[5])
        XCTAssertEqual(table[13], 130)
        XCTAssertEqual(table.count, 1)
        table[99]? += 1  // absent: optional chaining changes nothing
        XCTAssertNil(table[99])
        XCTAssertEqual(table.count, 1)
    }

    /// Iteration visits every entry once; an iterator made before a change walks the entries
    /// as they were.
    func testIterationVisitsEachEntryOnce() {
        var table = StreamTable<Int>()
        for id: UInt32 in stride(from: 1, through: 61, by: 4) { table[id] = Int(id) * 10 }
        XCTAssertEqual(table.ids.sorted(), Array(stride(from: 1, through: 61, by: 4)))
        XCTAssertEqual(table.values.sorted(), stride(from: 1, through: 61, by: 4).map { Int($0) * 10 })
        XCTAssertEqual(table.underestimatedCount, 16)
        let before = table.makeIterator()
        let capacity = table.capacity
        table.removeAll(keepingCapacity: true)
        XCTAssertTrue(table.isEmpty)
        XCTAssertEqual(table.capacity, capacity, "the slots stay")
        XCTAssertNil(table[1])
        var walked = 0
        for entry in IteratorSequence(before) {
            XCTAssertEqual(entry.value, Int(entry.id) * 10)
            walked += 1
        }
        XCTAssertEqual(walked, 16)
        table[3] = 3
        XCTAssertEqual(Array(table.ids), [3])
        table.removeAll()
        XCTAssertEqual(table.capacity, 0)
        XCTAssertTrue(Array(table.values).isEmpty)
    }

    // MARK: Helpers

    private final class Reference {}

    private struct Box {
        var reference = Reference()
        var items: [Int] = []
        var touched = 0

        mutating func referenceIsUnique() -> Bool {
            isKnownUniquelyReferenced(&reference)
        }
    }

    private static func touch(_ box: inout Box?) {
        XCTAssertEqual(box?.referenceIsUnique(), true, "changed where it is stored, not in a copy")
        box?.touched += 1
    }

    private static func setOptional(_ value: inout Int?, to newValue: Int?) {
        value = newValue
    }

    /// The slot of each entry, by slot index (the table's layout, for the tests of its chains).
    private func slots<Value>(of table: StreamTable<Value>) throws -> [Int: UInt32] {
        var slots: [Int: UInt32] = [:]
        for (index, id) in table.slotIDs.enumerated() where id != StreamTable<Value>.emptySlot {
            slots[index] = try XCTUnwrap(UInt32(exactly: id))
            XCTAssertNotNil(table.slotValues[index], "slot \(index) has an id and no value")
        }
        for index in table.slotValues.indices where table.slotIDs[index] == StreamTable<Value>.emptySlot {
            XCTAssertNil(table.slotValues[index], "slot \(index) has a value and no id")
        }
        return slots
    }

    /// `table` holds exactly `model`'s entries: by look-up, by iteration and by count; the
    /// slots are a power of two, no more than half taken.
    private func assertEqual(_ table: StreamTable<Int>, _ model: [UInt32: Int], _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(table.count, model.count, message, file: file, line: line)
        XCTAssertEqual(table.isEmpty, model.isEmpty, message, file: file, line: line)
        for (id, value) in model where table[id] != value {
            XCTFail("\(message): id \(id) is \(table[id].map(String.init) ?? "missing"), not \(value)", file: file, line: line)
        }
        var iterated: [UInt32: Int] = [:]
        for (id, value) in table {
            XCTAssertNil(iterated.updateValue(value, forKey: id), "\(message): id \(id) twice", file: file, line: line)
        }
        XCTAssertEqual(iterated, model, message, file: file, line: line)
        if table.capacity > 0 {
            XCTAssertEqual(table.capacity & (table.capacity - 1), 0, message, file: file, line: line)
            XCTAssertLessThanOrEqual(2 * table.count, table.capacity, message, file: file, line: line)
        }
    }
}
