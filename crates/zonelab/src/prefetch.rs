//! A software prefetch: a hint to the CPU to start loading a value's cache lines, so a miss
//! overlaps other work. It changes nothing the program computes (a no-op on targets without one).

/// Starts loading every cache line of `value` into the CPU cache.
#[inline]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let start = (value as *const T).cast::<i8>();
        let len = std::mem::size_of::<T>();
        let mut offset = 0;
        while offset < len {
            // SAFETY: a prefetch reads nothing the program sees and cannot fault; the address
            // is inside `value`.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(offset)) };
            offset += 64;
        }
        if len > 1 && (start as usize + len - 1) / 64 != (start as usize + offset - 64) / 64 {
            // The last line, for a value that does not start on a line boundary.
            // SAFETY: as above.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(len - 1)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
