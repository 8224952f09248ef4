import Foundation
import Testing
@testable import PhotoLibCore

/// Checks links, sizes, search order and heap order of `tree`; returns its height.
private func checkStructure(_ tree: OrderStatisticTree<Int>) -> Int {
    func walk(_ node: Int32, _ low: Int?, _ high: Int?, _ parentPriority: UInt32?) -> (size: Int, height: Int) {
        if node == -1 { return (0, 0) }
        let current = tree.nodes[Int(node)]
        if let low { #expect(current.element > low) }
        if let high { #expect(current.element < high) }
        if let parentPriority { #expect(current.priority <= parentPriority) }
        let left = walk(current.left, low, current.element, current.priority)
        let right = walk(current.right, current.element, high, current.priority)
        #expect(Int(current.size) == left.size + right.size + 1)
        return (left.size + right.size + 1, max(left.height, right.height) + 1)
    }
    let (size, height) = walk(tree.root, nil, nil, nil)
    #expect(size == tree.count)
    return height
}

private func intTree(seed: UInt64 = 1) -> OrderStatisticTree<Int> {
    OrderStatisticTree(seed: seed) { $0 < $1 ? .orderedAscending : ($0 > $1 ? .orderedDescending : .orderedSame) }
}

@Suite("Order-statistic tree")
struct OrderStatisticTreeTests {
    @Test("random inserts and removals match a sorted array")
    func randomOperations() {
        for seed in changeSeeds(base: 0x7EE, count: 40) {
            var random = ChangesRandom(seed: seed)
            var tree = intTree(seed: seed)
            var model: [Int] = []
            let universe = random.pick([8, 64, 1000])
            for step in 0..<400 {
                let value = random.int(0..<universe)
                let position = model.firstIndex { $0 >= value } ?? model.count
                let present = position < model.count && model[position] == value
                if random.chance(3, in: 5) {
                    if present { continue }
                    let index = tree.insert(value)
                    model.insert(value, at: position)
                    #expect(index == position, "seed \(seed) step \(step)")
                } else {
                    let index = tree.remove(value)
                    #expect(index == (present ? position : nil), "seed \(seed) step \(step)")
                    if present { model.remove(at: position) }
                }
                #expect(tree.count == model.count)
                #expect(tree.insertionIndex(for: value) == (model.firstIndex { $0 >= value } ?? model.count))
                if !model.isEmpty {
                    let index = random.int(0..<model.count)
                    #expect(tree.element(at: index) == model[index])
                    #expect(tree.rank(of: model[index]) == index)
                }
                if step % 50 == 0 {
                    #expect(Array(tree) == model, "seed \(seed) step \(step)")
                    _ = checkStructure(tree)
                    let lower = random.int(-2..<model.count + 3)
                    let upper = random.int(-2..<model.count + 3)
                    let range = min(lower, upper)..<max(lower, upper)
                    let clamped = max(0, min(range.lowerBound, model.count))..<max(0, min(range.upperBound, model.count))
                    #expect(Array(tree.elements(in: range)) == Array(model[clamped.lowerBound..<max(clamped.lowerBound, clamped.upperBound)]))
                }
            }
            #expect(Array(tree) == model, "seed \(seed)")
            _ = checkStructure(tree)
        }
    }

    @Test("stays shallow on sorted input, built or inserted")
    func balance() {
        var inserted = intTree(seed: 42)
        for value in 0..<20_000 { inserted.insert(value) }
        #expect(checkStructure(inserted) < 80)
        let built = OrderStatisticTree(sorted: 0..<20_000, seed: 7) { (a: Int, b: Int) in a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame) }
        #expect(checkStructure(built) < 80)
        #expect(Array(built) == Array(0..<20_000))
        var shrinking = built
        for value in stride(from: 0, to: 20_000, by: 2) { shrinking.remove(value) }
        #expect(checkStructure(shrinking) < 80)
        #expect(Array(shrinking) == Array(stride(from: 1, to: 20_000, by: 2)))
        #expect(Array(built).count == 20_000, "value semantics: the copy was not affected")
    }

    @Test("empty tree and missing elements")
    func empty() {
        var tree = intTree()
        #expect(tree.isEmpty && tree.count == 0)
        #expect(tree.rank(of: 3) == nil)
        #expect(tree.remove(3) == nil)
        #expect(tree.insertionIndex(for: 3) == 0)
        #expect(Array(tree).isEmpty)
        #expect(Array(tree.elements(in: 0..<5)).isEmpty)
        tree.insert(5)
        tree.insert(1)
        #expect(tree.insertionIndex(for: 3) == 1)
        #expect(tree.rank(of: 3) == nil)
        #expect(Array(tree) == [1, 5])
    }
}
