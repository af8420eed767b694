//! Division by a run-time constant on hot paths (geometry, block sizes).

/// A divisor that divides by shifting when it is a power of two (the common case for geometry),
/// since integer division is among the slowest instructions on the hot path.
#[derive(Clone, Copy, Debug)]
pub struct Divisor {
    d: u64,
    shift: Option<u32>,
}

impl Divisor {
    pub fn new(d: u64) -> Self {
        assert!(d > 0, "a divisor above zero");
        Divisor {
            d,
            shift: d.is_power_of_two().then(|| d.trailing_zeros()),
        }
    }
    #[inline]
    pub fn quot(self, x: u64) -> u64 {
        match self.shift {
            Some(s) => x >> s,
            None => x / self.d,
        }
    }
    #[inline]
    pub fn rest(self, x: u64) -> u64 {
        match self.shift {
            Some(_) => x & (self.d - 1),
            None => x % self.d,
        }
    }
    pub fn get(self) -> u64 {
        self.d
    }
}
