//! Which dies a command used, as a bitset the per-command trace prints as ranges.

/// The dies one command used (for the per-command trace).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DieSet {
    words: Vec<u64>,
}

impl DieSet {
    pub fn insert(&mut self, die: u32) {
        let w = (die / 64) as usize;
        if w >= self.words.len() {
            self.words.resize(w + 1, 0);
        }
        self.words[w] |= 1 << (die % 64);
    }
    pub fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.words.iter().enumerate().flat_map(|(i, &w)| {
            (0..64)
                .filter(move |b| w & (1 << b) != 0)
                .map(move |b| i as u32 * 64 + b)
        })
    }
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }
    /// Compact text: runs of consecutive members, e.g. "0-3;8;12-13".
    pub fn ranges(&self) -> String {
        let mut out = String::new();
        let mut run: Option<(u32, u32)> = None;
        let flush = |out: &mut String, (a, b): (u32, u32)| {
            if !out.is_empty() {
                out.push(';');
            }
            if a == b {
                out.push_str(&a.to_string());
            } else {
                out.push_str(&format!("{a}-{b}"));
            }
        };
        for d in self.iter() {
            run = match run {
                Some((a, b)) if b + 1 == d => Some((a, d)),
                Some(r) => {
                    flush(&mut out, r);
                    Some((d, d))
                }
                None => Some((d, d)),
            };
        }
        if let Some(r) = run {
            flush(&mut out, r);
        }
        out
    }
    /// Parses [`DieSet::ranges`] text.
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
