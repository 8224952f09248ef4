import Foundation
import PhotoLibCore
import Testing

/// Membership rules a fetch's query might express, as closures over the asset.
private let memberships: [(name: String, matches: @Sendable (Asset) -> Bool)] = [
    ("all", { _ in true }),
    ("not hidden", { !$0.isHidden }),
    ("favourites", { $0.isFavorite }),
    ("visible images", { !$0.isHidden && $0.mediaType == .image }),
    ("wide", { $0.pixelWidth >= 1920 }),
    ("recent or favourite", { $0.creationDate.timeIntervalSince1970 >= 1_700_000_000 || $0.isFavorite }),
]

/// One random scenario: a library, a fetch over it, and the fetch's live result.
private struct Scenario {
    var random: ChangesRandom
    var library: [String: Asset] = [:]
    /// Every identifier ever created, in creation order (deleted ones included), for deterministic picks.
    var identifiers: [String] = []
    var serial = 0
    let descriptors: [AssetSortDescriptor]
    let fetchLimit: Int
    let membership: (name: String, matches: @Sendable (Asset) -> Bool)
    let live: LiveFetchResult

    init(seed: UInt64) {
        var random = ChangesRandom(seed: seed)
        let population = random.chance(1, in: 10) ? random.int(50..<250) : random.int(0..<30)
        for _ in 0..<population {
            let identifier = random.identifier(serial)
            serial += 1
            library[identifier] = random.asset(identifier)
            identifiers.append(identifier)
        }
        descriptors = random.sortDescriptors()
        fetchLimit = random.pick([0, 0, 1, random.int(1..<6), random.int(1..<6), population + random.int(1..<5)])
        membership = random.pick(memberships)
        let matches = membership.matches
        live = LiveFetchResult(ordering: AssetOrdering(descriptors), fetchLimit: fetchLimit, members: library.values.filter { matches($0) })
        self.random = random
    }

    /// What a fresh fetch returns now.
    var reference: [Asset] {
        let sorted = referenceSorted(library.values.filter { membership.matches($0) }, descriptors)
        return fetchLimit > 0 ? Array(sorted.prefix(fetchLimit)) : sorted
    }

    /// Applies a random transaction to the library; returns the updates and touched identifiers.
    mutating func transaction() -> [LiveUpdate] {
        var updates: [LiveUpdate] = []
        for _ in 0..<random.int(1..<11) {
            var asset: Asset?
            var identifier = identifiers.isEmpty ? "" : random.pick(identifiers)
            if identifiers.isEmpty || random.chance(1, in: 5) || library[identifier] == nil {
                identifier = random.identifier(serial)
                serial += 1
                identifiers.append(identifier)
                asset = random.asset(identifier)
            } else {
                var value = library[identifier]!
                switch random.int(0..<10) {
                case 0: asset = nil  // deleted
                case 1: value.creationDate = Date(timeIntervalSince1970: random.pick(ChangesPool.dates))
                case 2: value.modificationDate = Date(timeIntervalSince1970: random.pick(ChangesPool.dates))
                case 3: value.pixelWidth = random.pick(ChangesPool.widths)
                case 4: value.duration = random.pick(ChangesPool.durations); value.mediaType = random.pick(MediaType.allCases)
                case 5: value.isFavorite.toggle()
                case 6: value.isHidden.toggle()
                case 7: value.burstIdentifier = "burst\(random.int(0..<3))"  // not a sort key
                case 8: value = random.asset(identifier)  // everything at once
                default: break  // touched, unchanged
                }
                if random.int(0..<10) != 0 { asset = value }
            }
            library[identifier] = asset
            updates.append(LiveUpdate(identifier: identifier, asset: asset, matches: asset.map(membership.matches) ?? false, contentChanged: random.chance(1, in: 4)))
        }
        return updates
    }
}

/// `details` without its changed indexes: only removals, insertions and moves.
private func positionsOnly(_ details: FetchResultChangeDetails) -> FetchResultChangeDetails {
    var positions = details
    positions.changedIndexes = []
    return positions
}

/// Runs one random sequence of transactions; returns the first failure, described.
private func runSequence(seed: UInt64, transactions: Int) -> String? {
    var scenario = Scenario(seed: seed)
    var before = scenario.reference
    if scenario.live.materialize() != before.map(\.localIdentifier) { return "initial materialize differs" }
    for step in 0..<transactions {
        let updates = scenario.transaction()
        let touched = Set(updates.map(\.identifier))
        let details = scenario.live.apply(updates)
        let after = scenario.reference
        let beforeIDs = before.map(\.localIdentifier), afterIDs = after.map(\.localIdentifier)
        let context = "step \(step), \(scenario.descriptors), limit \(scenario.fetchLimit), \(scenario.membership.name), \(details)"
        guard details.isWellFormed, details.hasIncrementalChanges else { return "malformed details, \(context)" }
        guard details.countBefore == before.count, details.countAfter == after.count else { return "counts, \(context)" }
        // THE property: applying the details to the before list gives the fresh fetch, values included…
        guard details.apply(to: before, newObject: { after[$0] }) == after else {
            return "apply(details) != fresh fetch\n  before \(beforeIDs)\n  after  \(afterIDs)\n  \(context)"
        }
        // …and every object is already in place before the changed indexes are refreshed.
        guard positionsOnly(details).apply(to: beforeIDs, newObject: { afterIDs[$0] }) == afterIDs else {
            return "removals, insertions and moves alone misplace objects\n  before \(beforeIDs)\n  after  \(afterIDs)\n  \(context)"
        }
        guard scenario.live.materialize() == afterIDs, scenario.live.count == after.count else { return "materialize, \(context)" }
        let survivors = Set(beforeIDs).intersection(afterIDs)
        guard details.changedIndexes.map({ afterIDs[$0] }) == afterIDs.filter({ touched.contains($0) && survivors.contains($0) }) else {
            return "changedIndexes are not exactly the touched survivors, \(context)"
        }
        guard details.moves.allSatisfy({ touched.contains(afterIDs[$0.to]) && beforeIDs[$0.from] == afterIDs[$0.to] }) else {
            return "a move of an untouched asset or between different assets, \(context)"
        }
        // The general diff must agree on everything but (possibly) the choice of moves, with no more of them.
        let diff = FetchResultChangeDetails.diff(before: beforeIDs, after: afterIDs, changed: touched)
        guard diff.isWellFormed, diff.apply(to: before, newObject: { after[$0] }) == after,
            positionsOnly(diff).apply(to: beforeIDs, newObject: { afterIDs[$0] }) == afterIDs
        else { return "diff does not apply, \(context)" }
        guard diff.removedIndexes == details.removedIndexes, diff.insertedIndexes == details.insertedIndexes,
            diff.changedIndexes == details.changedIndexes, diff.moves.count <= details.moves.count
        else { return "diff disagrees: \(diff), \(context)" }
        // Lookups.
        for identifier in touched.union(scenario.random.chance(1, in: 2) ? beforeIDs.prefix(2) : []) {
            guard scenario.live.index(of: identifier) == afterIDs.firstIndex(of: identifier) else { return "index(of: \(identifier)), \(context)" }
        }
        if !afterIDs.isEmpty {
            let index = scenario.random.int(0..<afterIDs.count)
            let end = scenario.random.int(index..<afterIDs.count + 2)
            guard scenario.live.identifier(at: index) == afterIDs[index],
                scenario.live.identifiers(in: index..<end) == Array(afterIDs[index..<min(end, afterIDs.count)])
            else { return "identifier(at:) / identifiers(in:), \(context)" }
        }
        before = after
    }
    return nil
}

@Suite("LiveFetchResult: details applied to the before list give the fresh fetch")
struct LiveFetchResultPropertyTests {
    @Test("thousands of random transaction sequences")
    func property() {
        let seeds = changeSeeds(base: 0xC4A9_6E5, count: 3000)
        for seed in seeds {
            if let failure = runSequence(seed: seed, transactions: 6) {
                Issue.record("CHANGES_SEED=\(seed): \(failure)")
                print("LiveFetchResultPropertyTests failed; replay with CHANGES_SEED=\(seed)")
                return
            }
        }
    }
}
