import Foundation

/// A sorted collection with positional access: a treap (a binary search tree kept balanced
/// in expectation by random heap priorities) whose nodes record their subtree sizes.
///
/// `insert`, `remove`, `rank(of:)`, `insertionIndex(for:)` and `element(at:)` cost
/// O(log n) expected; iteration is in order, O(1) amortised per element.
///
/// Elements must be distinct under the comparator (it is a strict total order on what the
/// tree holds): inserting an element equal to one already held is a precondition violation.
///
/// Nodes live in one array and link by index, so the tree allocates only when that array
/// grows; a removed node's slot is refilled by the last node, keeping the array dense.
public struct OrderStatisticTree<Element> {
    /// One node: its element, its children (``none`` when absent), its subtree size and priority.
    struct Node {
        var element: Element
        var left: Int32
        var right: Int32
        var size: Int32
        var priority: UInt32
    }

    /// The link value that means "no node".
    static var none: Int32 { -1 }

    /// The nodes, densely packed; `root` indexes into it.
    var nodes: [Node] = []
    /// The root node, or ``none``.
    var root: Int32 = -1
    /// SplitMix64 state for node priorities.
    var randomState: UInt64
    /// The order: `.orderedAscending` when the first argument comes first.
    let comparator: (Element, Element) -> ComparisonResult

    /// An empty tree ordered by `comparator`; `seed` fixes the (internal) node priorities.
    public init(seed: UInt64 = UInt64.random(in: 0...UInt64.max), by comparator: @escaping (Element, Element) -> ComparisonResult) {
        self.randomState = seed
        self.comparator = comparator
    }

    /// A tree holding `sorted`, which must already be strictly increasing under `comparator`.
    /// O(n): a Cartesian tree built left to right with a stack.
    public init<S: Sequence>(
        sorted: S, seed: UInt64 = UInt64.random(in: 0...UInt64.max),
        by comparator: @escaping (Element, Element) -> ComparisonResult
    ) where S.Element == Element {
        self.init(seed: seed, by: comparator)
        nodes.reserveCapacity(sorted.underestimatedCount)
        var spine: [Int32] = []  // the right spine, root first
        for element in sorted {
            if let previous = nodes.last {
                precondition(comparator(previous.element, element) == .orderedAscending, "OrderStatisticTree(sorted:): elements are not strictly increasing")
            }
            let node = Int32(nodes.count)
            nodes.append(Node(element: element, left: Self.none, right: Self.none, size: 1, priority: nextPriority()))
            var lastPopped = Self.none
            while let top = spine.last, nodes[Int(top)].priority < nodes[Int(node)].priority {
                lastPopped = top
                spine.removeLast()
            }
            nodes[Int(node)].left = lastPopped
            if let top = spine.last { nodes[Int(top)].right = node }
            spine.append(node)
        }
        root = spine.first ?? Self.none
        if root != Self.none { fixSizes(root) }
    }

    /// The number of elements.
    public var count: Int { nodes.count }

    /// Whether the tree holds nothing.
    public var isEmpty: Bool { nodes.isEmpty }

    /// Adds `element`, which must not be in the tree yet; returns the index it now has.
    @discardableResult
    public mutating func insert(_ element: Element) -> Int {
        let node = Int32(nodes.count)
        nodes.append(Node(element: element, left: Self.none, right: Self.none, size: 1, priority: nextPriority()))
        root = insert(node, into: root)
        return rank(of: element)!
    }

    /// Removes the element equal to `element`; returns the index it had, or `nil` (and
    /// changes nothing) when there is none.
    @discardableResult
    public mutating func remove(_ element: Element) -> Int? {
        guard let index = rank(of: element) else { return nil }
        var removed = Self.none
        root = remove(element, from: root, removed: &removed)
        release(removed)
        return index
    }

    /// The index of the element equal to `element`, or `nil`.
    public func rank(of element: Element) -> Int? {
        var node = root
        var before = 0
        while node != Self.none {
            let current = nodes[Int(node)]
            switch comparator(element, current.element) {
            case .orderedAscending: node = current.left
            case .orderedDescending:
                before += size(current.left) + 1
                node = current.right
            case .orderedSame: return before + size(current.left)
            }
        }
        return nil
    }

    /// How many elements come strictly before `element` (its index if it is in the tree,
    /// otherwise the index it would get if inserted).
    public func insertionIndex(for element: Element) -> Int {
        var node = root
        var before = 0
        while node != Self.none {
            let current = nodes[Int(node)]
            if comparator(current.element, element) == .orderedAscending {
                before += size(current.left) + 1
                node = current.right
            } else {
                node = current.left
            }
        }
        return before
    }

    /// The element at `index` (0 is the smallest); `index` must be in `0..<count`.
    public func element(at index: Int) -> Element {
        precondition(index >= 0 && index < count, "OrderStatisticTree.element(at:): index \(index) out of 0..<\(count)")
        var node = root
        var remaining = index
        while true {
            let current = nodes[Int(node)]
            let leftSize = size(current.left)
            if remaining < leftSize {
                node = current.left
            } else if remaining == leftSize {
                return current.element
            } else {
                remaining -= leftSize + 1
                node = current.right
            }
        }
    }

    // MARK: Internals

    /// The subtree size at `node` (0 for ``none``).
    @inline(__always)
    func size(_ node: Int32) -> Int { node == Self.none ? 0 : Int(nodes[Int(node)].size) }

    /// Recomputes `node`'s size from its children.
    @inline(__always)
    mutating func update(_ node: Int32) {
        let current = nodes[Int(node)]
        nodes[Int(node)].size = Int32(1 + size(current.left) + size(current.right))
    }

    /// Sets every size in the subtree at `node` (after a bulk build). Recursion depth is
    /// the tree height, O(log n) expected.
    mutating func fixSizes(_ node: Int32) {
        let current = nodes[Int(node)]
        if current.left != Self.none { fixSizes(current.left) }
        if current.right != Self.none { fixSizes(current.right) }
        update(node)
    }

    /// The next node priority (SplitMix64, high half).
    mutating func nextPriority() -> UInt32 {
        randomState &+= 0x9E37_79B9_7F4A_7C15
        var z = randomState
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return UInt32(truncatingIfNeeded: (z ^ (z >> 31)) >> 32)
    }

    /// Inserts the detached `node` into the subtree at `tree`; returns the new subtree root.
    mutating func insert(_ node: Int32, into tree: Int32) -> Int32 {
        if tree == Self.none { return node }
        if nodes[Int(node)].priority > nodes[Int(tree)].priority {
            let (left, right) = split(tree, at: nodes[Int(node)].element)
            nodes[Int(node)].left = left
            nodes[Int(node)].right = right
            update(node)
            return node
        }
        switch comparator(nodes[Int(node)].element, nodes[Int(tree)].element) {
        case .orderedAscending:
            let child = insert(node, into: nodes[Int(tree)].left)
            nodes[Int(tree)].left = child
        case .orderedDescending:
            let child = insert(node, into: nodes[Int(tree)].right)
            nodes[Int(tree)].right = child
        case .orderedSame:
            preconditionFailure("OrderStatisticTree.insert: an equal element is already in the tree")
        }
        nodes[Int(tree)].size += 1
        return tree
    }

    /// Splits the subtree at `tree` into the elements before `pivot` and the rest.
    mutating func split(_ tree: Int32, at pivot: Element) -> (Int32, Int32) {
        if tree == Self.none { return (Self.none, Self.none) }
        switch comparator(nodes[Int(tree)].element, pivot) {
        case .orderedAscending:
            let (left, right) = split(nodes[Int(tree)].right, at: pivot)
            nodes[Int(tree)].right = left
            update(tree)
            return (tree, right)
        case .orderedDescending:
            let (left, right) = split(nodes[Int(tree)].left, at: pivot)
            nodes[Int(tree)].left = right
            update(tree)
            return (left, tree)
        case .orderedSame:
            preconditionFailure("OrderStatisticTree.insert: an equal element is already in the tree")
        }
    }

    /// Joins two subtrees, every element of `left` before every element of `right`.
    mutating func merge(_ left: Int32, _ right: Int32) -> Int32 {
        if left == Self.none { return right }
        if right == Self.none { return left }
        if nodes[Int(left)].priority > nodes[Int(right)].priority {
            let child = merge(nodes[Int(left)].right, right)
            nodes[Int(left)].right = child
            update(left)
            return left
        } else {
            let child = merge(left, nodes[Int(right)].left)
            nodes[Int(right)].left = child
            update(right)
            return right
        }
    }

    /// Unlinks the node equal to `element` (known to be present) from the subtree at `tree`;
    /// sets `removed` to it and returns the new subtree root.
    mutating func remove(_ element: Element, from tree: Int32, removed: inout Int32) -> Int32 {
        switch comparator(element, nodes[Int(tree)].element) {
        case .orderedAscending:
            let child = remove(element, from: nodes[Int(tree)].left, removed: &removed)
            nodes[Int(tree)].left = child
        case .orderedDescending:
            let child = remove(element, from: nodes[Int(tree)].right, removed: &removed)
            nodes[Int(tree)].right = child
        case .orderedSame:
            removed = tree
            return merge(nodes[Int(tree)].left, nodes[Int(tree)].right)
        }
        nodes[Int(tree)].size -= 1
        return tree
    }

    /// Frees the unlinked slot `slot` by moving the last node into it and relinking that
    /// node's parent (found by a search from the root).
    mutating func release(_ slot: Int32) {
        let last = Int32(nodes.count - 1)
        if slot != last {
            let moved = nodes[Int(last)]
            if root == last {
                root = slot
            } else {
                var parent = root
                while true {
                    let current = nodes[Int(parent)]
                    if comparator(moved.element, current.element) == .orderedAscending {
                        if current.left == last { nodes[Int(parent)].left = slot; break }
                        parent = current.left
                    } else {
                        if current.right == last { nodes[Int(parent)].right = slot; break }
                        parent = current.right
                    }
                }
            }
            nodes[Int(slot)] = moved
        }
        nodes.removeLast()
    }
}
