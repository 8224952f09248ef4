extension OrderStatisticTree: Sequence {
    /// Iterates the elements in order with an explicit stack: O(log n) memory.
    public struct Iterator: IteratorProtocol {
        /// The tree's nodes (a copy-on-write reference, not a copy).
        let nodes: [Node]
        /// Nodes whose element and right subtree are still to be visited, deepest last.
        var stack: [Int32]
        /// Elements still to produce (for ranges).
        var remaining: Int

        /// The next element, or `nil` at the end.
        public mutating func next() -> Element? {
            guard remaining > 0, let node = stack.popLast() else { return nil }
            remaining -= 1
            let current = nodes[Int(node)]
            var child = current.right
            while child != OrderStatisticTree.none {
                stack.append(child)
                child = nodes[Int(child)].left
            }
            return current.element
        }
    }

    /// An iterator over every element, in order.
    public func makeIterator() -> Iterator { iterator(from: 0, count: count) }

    /// The number of elements, for `Array(tree)` and friends.
    public var underestimatedCount: Int { count }

    /// The elements at `range` (clamped to `0..<count`), in order: O(log n + range.count).
    public func elements(in range: Range<Int>) -> IteratorSequence<Iterator> {
        let lower = Swift.max(0, Swift.min(range.lowerBound, count))
        let upper = Swift.max(lower, Swift.min(range.upperBound, count))
        return IteratorSequence(iterator(from: lower, count: upper - lower))
    }

    /// An iterator that starts at index `start` and yields at most `count` elements.
    func iterator(from start: Int, count: Int) -> Iterator {
        var stack: [Int32] = []
        var node = root
        var skip = start
        // Walk to the element at `start`, stacking every node whose element comes at or after it.
        while node != Self.none {
            let current = nodes[Int(node)]
            let leftSize = size(current.left)
            if skip < leftSize {
                stack.append(node)
                node = current.left
            } else if skip == leftSize {
                stack.append(node)
                break
            } else {
                skip -= leftSize + 1
                node = current.right
            }
        }
        return Iterator(nodes: nodes, stack: stack, remaining: count)
    }
}
