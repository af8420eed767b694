//! Which dies a command used, as a bitset the per-command trace prints as ranges.

use smallvec::SmallVec;

/// The dies one command used (for the per-command trace). Up to 256 dies are held inline, so a
/// traced command allocates nothing for it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DieSet {
    words: SmallVec<[u64; 4]>,
}

impl DieSet {
    pub fn insert(&mut self, die: u32) {
        let w = (die / 64) as usize;
        if w >= self.words.len() {
            self.words.resize(w + 1, 0);
        }
        self.words[w] |= 1 << (die % 64);
    }
    /// Members in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.words
            .iter()
            .enumerate()
            .flat_map(|(i, &w)| crate::bits::ones(w).map(move |b| i as u32 * 64 + b))
    }
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }
    /// Appends the members as compact text to `out`: runs of consecutive members, e.g.
    /// "0-3;8;12-13".
    pub fn write_ranges(&self, out: &mut String) {
        let mut digits = itoa::Buffer::new();
        let mut first = true;
        let mut flush = |out: &mut String, (a, b): (u32, u32)| {
            if !std::mem::take(&mut first) {
                out.push(';');
            }
            out.push_str(digits.format(a));
            if a != b {
                out.push('-');
                out.push_str(digits.format(b));
            }
        };
        let mut run: Option<(u32, u32)> = None;
        for d in self.iter() {
            run = match run {
                Some((a, b)) if b + 1 == d => Some((a, d)),
                Some(r) => {
                    flush(out, r);
                    Some((d, d))
                }
                None => Some((d, d)),
            };
        }
        if let Some(r) = run {
            flush(out, r);
        }
    }
    /// Parses [`DieSet::write_ranges`] text.
    pub fn parse(text: &str) -> Option<DieSet> {
        let mut set = DieSet::default();
        for part in text.split(';').filter(|p| !p.is_empty()) {
            let (a, b) = match part.split_once('-') {
                Some((a, b)) => (a.parse().ok()?, b.parse().ok()?),
                None => {
                    let a = part.parse().ok()?;
                    (a, a)
                }
            };
            if a > b || b - a > 1 << 20 {
                return None;
            }
            (a..=b).for_each(|d| set.insert(d));
        }
        Some(set)
    }
}
