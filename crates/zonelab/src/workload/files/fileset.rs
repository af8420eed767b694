//! A Filebench fileset's entries and how its flowops pick them (filebench/filebench, read at
//! 0445b4f: fileset.c `fileset_pick`, `fileset_unbusy`; flowop_library.c `flowoplib_pickfile`).
//!
//! Entries are numbered in the order the fileset was populated. Those whose file exists and
//! those whose file does not sit in two ordered sets (Filebench's `fs_exist_files` and
//! `fs_noex_files` AVL trees, keyed by index). A flowop without a file index picks in
//! rotation, not at random: the first entry at or after the set's rotor (wrapping to the
//! lowest), the rotor then one past it, and if that entry is busy the next one that is not.
//! createfile picks from the absent entries with `fs_file_nerotor`; deletefile, openfile and
//! statfile from the existing ones with `fs_file_exrotor[0]`, one rotor for every thread (a
//! flowop passes its thread's id only with `rotatefd`, which varmail and fileserver do not
//! set). An entry is busy only from its pick until its operation is done: an opened file is
//! released at once with its open count raised, so other threads may open it too, and
//! deletefile leaves a file that is open anywhere alone.

use std::collections::BTreeSet;

/// Entries that exist or not, busy or not, with their open counts and the two rotors.
pub struct Fileset {
    pub paths: Vec<String>,
    existing: BTreeSet<u32>,
    absent: BTreeSet<u32>,
    busy: Vec<bool>,
    opens: Vec<u32>,
    ex_rotor: u32,
    ne_rotor: u32,
}

impl Fileset {
    pub fn new(paths: Vec<String>, exists: Vec<bool>) -> Self {
        assert_eq!(paths.len(), exists.len(), "one existence flag per path");
        let (mut existing, mut absent) = (BTreeSet::new(), BTreeSet::new());
        for (i, &e) in exists.iter().enumerate() {
            if e {
                existing.insert(i as u32);
            } else {
                absent.insert(i as u32);
            }
        }
        Fileset {
            busy: vec![false; paths.len()],
            opens: vec![0; paths.len()],
            paths,
            existing,
            absent,
            ex_rotor: 0,
            ne_rotor: 0,
        }
    }

    /// Picks an entry whose file exists (or not) in rotation and marks it busy; None when every
    /// such entry is busy or there is none.
    pub fn pick(&mut self, exists: bool) -> Option<u32> {
        let (set, rotor) = if exists {
            (&self.existing, &mut self.ex_rotor)
        } else {
            (&self.absent, &mut self.ne_rotor)
        };
        let at_or_after = |i: u32| set.range(i..).next().or_else(|| set.first()).copied();
        let first = at_or_after(*rotor)?;
        *rotor = first + 1;
        let mut e = first;
        while self.busy[e as usize] {
            e = at_or_after(e + 1).expect("the set is not empty");
            if e == first {
                return None;
            }
        }
        self.busy[e as usize] = true;
        Some(e)
    }

    /// Marks an entry no thread holds busy (closefile holds its entry while it closes).
    pub fn hold(&mut self, e: u32) {
        assert!(!self.busy[e as usize], "entry {e} is held twice");
        self.busy[e as usize] = true;
    }

    pub fn is_busy(&self, e: u32) -> bool {
        self.busy[e as usize]
    }

    /// Releases a busy entry: its file now exists or not (`exists`, None: unchanged), and
    /// `opened` descriptors more (or fewer) are open on it.
    pub fn release(&mut self, e: u32, exists: Option<bool>, opened: i32) {
        let i = e as usize;
        assert!(self.busy[i], "entry {e} released without being held");
        match exists {
            Some(true) if self.absent.remove(&e) => {
                self.existing.insert(e);
            }
            Some(false) if self.existing.remove(&e) => {
                self.absent.insert(e);
            }
            _ => {}
        }
        self.opens[i] = self.opens[i]
            .checked_add_signed(opened)
            .expect("an entry's open count stays non-negative");
        self.busy[i] = false;
    }

    /// Descriptors open on the entry's file.
    pub fn opens(&self, e: u32) -> u32 {
        self.opens[e as usize]
    }

    #[cfg(test)]
    pub fn exists(&self, e: u32) -> bool {
        self.existing.contains(&e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(exists: &[bool]) -> Fileset {
        Fileset::new(
            (0..exists.len()).map(|i| format!("/f{i}")).collect(),
            exists.to_vec(),
        )
    }

    /// Picks go round the entries in index order, past busy ones, as Filebench's rotors do.
    #[test]
    fn picks_rotate_over_the_entries_skipping_busy_ones() {
        let mut f = set(&[true, false, true, true, false]);
        assert_eq!(f.pick(true), Some(0));
        assert_eq!(f.pick(true), Some(2), "the rotor moved past 0");
        f.release(2, None, 0);
        assert_eq!(f.pick(true), Some(3));
        assert_eq!(f.pick(true), Some(2), "wrapped, skipping the busy 0");
        assert_eq!(f.pick(true), None, "0, 2 and 3 are all busy");
        assert_eq!(f.pick(false), Some(1));
        f.release(1, Some(true), 1);
        assert!(f.exists(1));
        assert_eq!(f.opens(1), 1);
        assert_eq!(f.pick(false), Some(4), "the absent rotor is its own");
        assert_eq!(f.pick(false), None, "4 is busy and 1 exists now");
        f.release(0, Some(false), 0);
        assert!(!f.exists(0));
        // The existing rotor stands after 2: 3 is busy, so 1 (wrapped) is next.
        assert_eq!(f.pick(true), Some(1));
    }

    /// The rotation as Filebench's code reads, by scanning every index: the first entry of the
    /// set at or after the rotor (wrapping), the rotor one past it, then the first one not busy
    /// from there on (wrapping, at most once round).
    struct Scan {
        exists: Vec<bool>,
        busy: Vec<bool>,
        rotors: [usize; 2],
    }

    impl Scan {
        fn pick(&mut self, exists: bool) -> Option<u32> {
            let n = self.exists.len();
            let rotor = &mut self.rotors[exists as usize];
            let in_set: Vec<usize> = (0..n).filter(|&i| self.exists[i] == exists).collect();
            let start = in_set.iter().position(|&i| i >= *rotor).unwrap_or(0);
            let first = *in_set.get(start)?;
            *rotor = first + 1;
            (0..in_set.len())
                .map(|k| in_set[(start + k) % in_set.len()])
                .find(|&i| !self.busy[i])
                .map(|i| {
                    self.busy[i] = true;
                    i as u32
                })
        }
    }

    proptest::proptest! {
        /// Any sequence of picks and releases gives the entries the scan gives.
        #[test]
        fn picks_match_a_scan_of_every_index(
            exists in proptest::collection::vec(proptest::bool::ANY, 1..12),
            steps in proptest::collection::vec((0u8..4, 0usize..12), 0..60),
        ) {
            let mut f = set(&exists);
            let mut s = Scan { busy: vec![false; exists.len()], exists, rotors: [0, 0] };
            let mut held: Vec<u32> = Vec::new();
            for (kind, k) in steps {
                match kind {
                    0 | 1 => {
                        let want = kind == 1;
                        let got = f.pick(want);
                        proptest::prop_assert_eq!(got, s.pick(want));
                        held.extend(got);
                    }
                    _ if !held.is_empty() => {
                        let e = held.swap_remove(k % held.len());
                        // kind 2 flips the entry's existence (a create or a delete), 3 keeps it.
                        let flip = (kind == 2).then(|| !f.exists(e));
                        f.release(e, flip, 0);
                        if let Some(x) = flip {
                            s.exists[e as usize] = x;
                        }
                        s.busy[e as usize] = false;
                    }
                    _ => {}
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "released without being held")]
    fn releasing_an_entry_no_one_holds_is_a_bug() {
        set(&[true]).release(0, None, 0);
    }
}
