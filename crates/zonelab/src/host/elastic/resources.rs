//! Essential and spare resources per namespace (ezns.md, "Initial provisioning" and "Global
//! overdrive"). The device's active limit is split into essentials (the minimum that reaches the
//! device's full write bandwidth) and spares; each of N namespaces owns essentials/N and
//! spares/N. A stripe group holds its base width from its namespace's essentials and the rest
//! from its spares. Spares can be lent to other namespaces (global overdrive); a loan is
//! recalled when the lender becomes active again, and the borrower gives spares back as its
//! groups release them.
//!
//! Essentials are bounded by the namespace's active v-zone limit (one open group each); they
//! are counted, not enforced. Spares are enforced.
//!
//! The ledger keeps `loans[i][j]`, spares of namespace `i` lent to `j`; a namespace's spare pool
//! is what it owns, less what it lent, plus what it borrowed. Pools always sum to the spares
//! owned in all, and no namespace uses more spares than its pool ([`Resources::check`]).

#[derive(Clone, Debug)]
pub struct Resources {
    pub essentials: Vec<u32>,
    pub own_spares: Vec<u32>,
    pub ess_used: Vec<u32>,
    pub spare_used: Vec<u32>,
    /// `loans[i][j]`: spares of `i` lent to `j`.
    loans: Vec<Vec<u32>>,
    /// `recall[i][j]`: of `loans[i][j]`, how many `j` must give back.
    recall: Vec<Vec<u32>>,
    /// The most spares each namespace used at once.
    pub spare_used_max: Vec<u32>,
    pub lent: u64,
    pub returned: u64,
}

impl Resources {
    pub fn new(essentials: u32, spares: u32, namespaces: u32) -> Self {
        let n = namespaces as usize;
        Resources {
            essentials: vec![essentials / namespaces; n],
            own_spares: vec![spares / namespaces; n],
            ess_used: vec![0; n],
            spare_used: vec![0; n],
            loans: vec![vec![0; n]; n],
            recall: vec![vec![0; n]; n],
            spare_used_max: vec![0; n],
            lent: 0,
            returned: 0,
        }
    }

    pub fn namespaces(&self) -> usize {
        self.essentials.len()
    }

    /// Spares namespace `j` may use: its own, less lent, plus borrowed.
    pub fn pool(&self, j: usize) -> u32 {
        let lent: u32 = self.loans[j].iter().sum();
        let borrowed: u32 = self.loans.iter().map(|l| l[j]).sum();
        self.own_spares[j] + borrowed - lent
    }

    /// Spares `i` may lend now: its own, not lent, not in use.
    pub fn lendable(&self, i: usize) -> u32 {
        (self.own_spares[i] - self.lent_by(i)).min(self.free_spares(i))
    }

    pub fn free_spares(&self, j: usize) -> u32 {
        self.pool(j) - self.spare_used[j]
    }

    /// Spares of `i` out on loan.
    pub fn lent_by(&self, i: usize) -> u32 {
        self.loans[i].iter().sum()
    }

    /// A group opens for `j`: it holds `ess` essentials and `spares` spares.
    pub fn take(&mut self, j: usize, ess: u32, spares: u32) {
        assert!(
            spares <= self.free_spares(j),
            "namespace {j}: {spares} spares asked, {} free",
            self.free_spares(j)
        );
        self.ess_used[j] += ess;
        self.spare_used[j] += spares;
        self.spare_used_max[j] = self.spare_used_max[j].max(self.spare_used[j]);
    }

    /// A group of `j` released its resources; recalled loans are settled from them.
    pub fn release(&mut self, j: usize, ess: u32, spares: u32) {
        self.unhold(j, ess, spares);
        self.settle(j);
    }

    /// As [`Resources::release`], without settling loans yet.
    pub fn unhold(&mut self, j: usize, ess: u32, spares: u32) {
        self.ess_used[j] -= ess;
        self.spare_used[j] -= spares;
    }

    /// `j` gives back what it owes lenders that recalled, as far as its unused spares allow.
    pub fn settle(&mut self, j: usize) {
        for i in 0..self.namespaces() {
            let owed = self.recall[i][j];
            if owed == 0 {
                continue;
            }
            let give = owed.min(self.free_spares(j));
            if give == 0 {
                return;
            }
            self.recall[i][j] -= give;
            self.loans[i][j] -= give;
            self.returned += give as u64;
        }
    }

    /// `i` lends `n` spares to `j`.
    pub fn lend(&mut self, i: usize, j: usize, n: u32) {
        assert!(n <= self.lendable(i), "lending spares in use or not owned");
        self.loans[i][j] += n;
        self.lent += n as u64;
    }

    /// `j` returns unused borrowed spares to their lenders (it went idle).
    pub fn return_unused(&mut self, j: usize) {
        for i in 0..self.namespaces() {
            let give = self.loans[i][j].min(self.free_spares(j));
            self.loans[i][j] -= give;
            self.recall[i][j] = self.recall[i][j].min(self.loans[i][j]);
            self.returned += give as u64;
        }
    }

    /// `i` is active again: everything it lent is recalled; borrowers give back what they do
    /// not use at once and the rest as their groups release spares.
    pub fn recall_all(&mut self, i: usize) -> bool {
        if self.lent_by(i) == 0 {
            return false;
        }
        for j in 0..self.namespaces() {
            self.recall[i][j] = self.loans[i][j];
        }
        for j in 0..self.namespaces() {
            self.settle(j);
        }
        true
    }

    /// `i` is idle again: it no longer wants back what it recalled.
    pub fn cancel_recall(&mut self, i: usize) {
        self.recall[i].iter_mut().for_each(|r| *r = 0);
    }

    /// Checks conservation (after every step, in tests).
    pub fn check(&self) {
        let n = self.namespaces();
        let pools: u32 = (0..n).map(|j| self.pool(j)).sum();
        let own: u32 = self.own_spares.iter().sum();
        assert_eq!(pools, own, "spare pools sum to the spares owned");
        for j in 0..n {
            assert!(
                self.spare_used[j] <= self.pool(j),
                "namespace {j} uses {} spares of a pool of {}",
                self.spare_used[j],
                self.pool(j)
            );
            assert!(self.loans[j][j] == 0, "no loans to oneself");
            for i in 0..n {
                assert!(self.recall[i][j] <= self.loans[i][j], "recall within loans");
            }
        }
    }
}
