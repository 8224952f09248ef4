/// Which positions of `values` form a longest strictly increasing subsequence (patience
/// sorting, O(n log n)); the result has one flag per value. Ties go to the earliest
/// candidates, so the choice is deterministic.
func longestIncreasingSubsequence(_ values: [Int]) -> [Bool] {
    // tails[l] = position of the smallest last value of an increasing run of length l + 1.
    var tails: [Int] = []
    var previous = [Int](repeating: -1, count: values.count)
    for (position, value) in values.enumerated() {
        var low = 0
        var high = tails.count
        while low < high {
            let middle = (low + high) / 2
            if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
        }
        if low > 0 { previous[position] = tails[low - 1] }
        if low == tails.count { tails.append(position) } else { tails[low] = position }
    }
    var keep = [Bool](repeating: false, count: values.count)
    var position = tails.last ?? -1
    while position >= 0 {
        keep[position] = true
        position = previous[position]
    }
    return keep
}
