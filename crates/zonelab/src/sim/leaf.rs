//! The cell that holds the kernel's event queue, device and metrics: each use borrows the value
//! for one call, with no borrow flag to check, set and clear: as `RefCell`s, their five borrows
//! a command were a measurable share of the hot path (BENCHMARKS.md, "What the hot path does").
//!
//! Why no flag is needed: [`LeafCell::with`] hands out `&mut T` only to a closure that is `Send`,
//! over a value that is `Send`. A cell is not `Sync` (it holds an `UnsafeCell`), and so neither
//! is the kernel that holds it; a reference to either is not `Send`, nor is an `Rc` of the
//! kernel (which a `Host` holds). So the closure cannot capture a way back to the cell, and the
//! value cannot hold one. What is left is a way in that is not held: a thread-local. That is why
//! two rules hold: the crate keeps no kernel, `Host` or cell in a static or thread-local, and no
//! code outside the crate gets a `Host` or a kernel (`experiment::run_with`, the one function that hands
//! out a `Host`, is crate-private; a device given to `experiment::run_on` gets no handle to the run).
//! So while the closure runs, nothing can reach the cell again: its `&mut T` is the only
//! reference to the value, as a `RefCell` would have checked.

use std::cell::UnsafeCell;

pub(crate) struct LeafCell<T> {
    value: UnsafeCell<T>,
}

impl<T: Send> LeafCell<T> {
    pub fn new(value: T) -> Self {
        LeafCell {
            value: UnsafeCell::new(value),
        }
    }

    /// Runs `f` on the value. `f` cannot reach this cell (see the module's note), so calls
    /// never nest on one cell; the result cannot borrow from the value.
    #[inline]
    pub fn with<R>(&self, f: impl FnOnce(&mut T) -> R + Send) -> R {
        // SAFETY: `f` and the value are `Send` and the cell is not `Sync`, so nothing `f` runs
        // holds a path back to this cell, and no thread-local holds one (the module's rules):
        // this is the only reference to the value until `f` returns, and none outlives it.
        f(unsafe { &mut *self.value.get() })
    }

    pub fn into_inner(self) -> T {
        self.value.into_inner()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_changes_the_value_and_returns_its_result() {
        let cell = LeafCell::new(vec![1, 2]);
        let len = cell.with(|v| {
            v.push(3);
            v.len()
        });
        assert_eq!(len, 3);
        assert_eq!(cell.with(|v| v.iter().sum::<i32>()), 6);
        assert_eq!(cell.into_inner(), [1, 2, 3]);
    }
}
