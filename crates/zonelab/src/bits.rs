//! The set bits of a word, lowest first: what the per-command die set prints and what garbage
//! collection copies from a page's word of the valid bitmap.

/// The positions of the bits set in `word`, in increasing order.
#[inline]
pub fn ones(mut word: u64) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        (word != 0).then(|| {
            let b = word.trailing_zeros();
            word &= word - 1;
            b
        })
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn ones_lists_the_set_bits_lowest_first() {
        assert_eq!(super::ones(0).count(), 0);
        let word = 1 | 1 << 5 | 1 << 63;
        assert_eq!(super::ones(word).collect::<Vec<_>>(), [0, 5, 63]);
    }
}
