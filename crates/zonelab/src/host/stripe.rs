//! Striping a logical range over the physical zones of one stripe group (eZNS section 2 terms):
//! `stripe` LBAs go to one physical zone before the next; `width` physical zones make the group.
//! Logical offset `x` of a group is stripe `k = x / stripe`, on physical zone `k % width`, at
//! `(k / width) * stripe + x % stripe` in it. A contiguous logical range is therefore a
//! contiguous range on each physical zone it touches, so a write needs one device write per
//! physical zone; a read is split per stripe, one device read each (as SPDK's striping does).

use smallvec::SmallVec;

use crate::nand::Divisor;

#[derive(Clone, Copy, Debug)]
pub struct Stripe {
    pub width: u32,
    pub stripe_lbas: u64,
    width_div: Divisor,
    stripe_div: Divisor,
}

/// One stripe's piece of a range: physical zone index in the group, offset in that zone, its
/// length and where it starts in the group's logical space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk {
    pub index: u32,
    pub offset: u64,
    pub len: u64,
    pub logical: u64,
}

/// A range's part on one physical zone of the group: contiguous there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    pub index: u32,
    pub offset: u64,
    pub len: u64,
}

impl Stripe {
    pub fn new(width: u32, stripe_lbas: u64) -> Self {
        assert!(width > 0 && stripe_lbas > 0);
        Stripe {
            width,
            stripe_lbas,
            width_div: Divisor::new(width as u64),
            stripe_div: Divisor::new(stripe_lbas),
        }
    }

    /// Where logical offset `x` lives: (zone index, offset in the zone, LBAs left in its stripe).
    #[inline]
    pub fn locate(&self, x: u64) -> (u32, u64, u64) {
        let k = self.stripe_div.quot(x);
        let within = self.stripe_div.rest(x);
        let index = self.width_div.rest(k) as u32;
        let row = self.width_div.quot(k);
        (
            index,
            row * self.stripe_lbas + within,
            self.stripe_lbas - within,
        )
    }

    /// The stripes of `[x0, x1)`, in logical order.
    pub fn chunks(&self, x0: u64, x1: u64) -> impl Iterator<Item = Chunk> + '_ {
        let mut x = x0;
        std::iter::from_fn(move || {
            if x >= x1 {
                return None;
            }
            let (index, offset, left) = self.locate(x);
            let len = left.min(x1 - x);
            let c = Chunk {
                index,
                offset,
                len,
                logical: x,
            };
            x += len;
            Some(c)
        })
    }

    /// The part of `[x0, x1)` on each physical zone, in the order the range first reaches them.
    pub fn runs(&self, x0: u64, x1: u64) -> SmallVec<[Run; 16]> {
        let mut runs: SmallVec<[Run; 16]> = SmallVec::new();
        for c in self.chunks(x0, x1) {
            match runs.iter_mut().find(|r| r.index == c.index) {
                Some(r) => {
                    debug_assert_eq!(r.offset + r.len, c.offset, "runs are contiguous");
                    r.len += c.len;
                }
                None => runs.push(Run {
                    index: c.index,
                    offset: c.offset,
                    len: c.len,
                }),
            }
            if runs.len() == self.width as usize
                && x1 - c.logical > self.width as u64 * self.stripe_lbas
            {
                // Every zone is reached: the rest is whole rows, added in one step.
                let next = c.logical + c.len;
                let row = self.width as u64 * self.stripe_lbas;
                let rows = (x1 - next) / row;
                if rows > 0 && self.stripe_div.rest(next) == 0 && c.index + 1 == self.width {
                    for r in runs.iter_mut() {
                        r.len += rows * self.stripe_lbas;
                    }
                    let tail = next + rows * row;
                    for t in self.chunks(tail, x1) {
                        let r = runs.iter_mut().find(|r| r.index == t.index).expect("a run");
                        r.len += t.len;
                    }
                    return runs;
                }
            }
        }
        runs
    }

    /// LBAs of `[0, x)` that land on zone `index`.
    pub fn on_zone(&self, index: u32, x: u64) -> u64 {
        let row = self.width as u64 * self.stripe_lbas;
        let full = x / row;
        let rest = x % row;
        let start = index as u64 * self.stripe_lbas;
        full * self.stripe_lbas + rest.saturating_sub(start).min(self.stripe_lbas)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_the_chunks_coalesced_per_zone() {
        for (width, stripe) in [(1, 8), (2, 8), (4, 4), (16, 1), (3, 2)] {
            let s = Stripe::new(width, stripe);
            for x0 in 0..40 {
                for x1 in x0 + 1..x0 + 200 {
                    let mut want: Vec<Run> = Vec::new();
                    for c in s.chunks(x0, x1) {
                        match want.iter_mut().find(|r| r.index == c.index) {
                            Some(r) => {
                                assert_eq!(r.offset + r.len, c.offset);
                                r.len += c.len;
                            }
                            None => want.push(Run {
                                index: c.index,
                                offset: c.offset,
                                len: c.len,
                            }),
                        }
                    }
                    assert_eq!(s.runs(x0, x1).to_vec(), want, "{width}x{stripe} {x0}..{x1}");
                    for r in &want {
                        assert_eq!(r.offset, s.on_zone(r.index, x0));
                        assert_eq!(r.offset + r.len, s.on_zone(r.index, x1));
                    }
                }
            }
        }
    }

    #[test]
    fn every_offset_has_one_place() {
        let s = Stripe::new(4, 8);
        let mut seen = std::collections::HashSet::new();
        for x in 0..4 * 8 * 10 {
            let (i, off, _) = s.locate(x);
            assert!(seen.insert((i, off)), "offset {x} collides");
            assert!(off < 8 * 10);
        }
    }
}
