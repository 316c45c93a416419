//! Putting a slice in an order computed apart from it, in place.

/// Moves the items of `items` so that the item at `at[k]` ends at `k` (`at` is a permutation of
/// `0..items.len()`), by swaps along each cycle: no second vector of the items. `at` is left as
/// the identity.
pub(crate) fn permute<T>(items: &mut [T], at: &mut [u32]) {
    for start in 0..at.len() {
        if at[start] as usize == start {
            continue;
        }
        let mut j = start;
        loop {
            let k = at[j] as usize;
            at[j] = j as u32;
            if k == start {
                break;
            }
            items.swap(j, k);
            j = k;
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn items_end_where_the_order_says() {
        let mut items = ['a', 'b', 'c', 'd', 'e'];
        // Two cycles (0 2 4) and (1 3).
        let mut at = [2, 3, 4, 1, 0];
        super::permute(&mut items, &mut at);
        assert_eq!(items, ['c', 'd', 'e', 'b', 'a']);
        assert_eq!(at, [0, 1, 2, 3, 4]);
    }
}
