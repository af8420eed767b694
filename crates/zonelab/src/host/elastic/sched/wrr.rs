//! Weighted round-robin across namespaces (ezns.md: "one NVMe queue pair per namespace";
//! weights unstated, chosen default: all 1). When queued work of several namespaces can go at
//! one instant, each round gives every namespace up to its weight in dispatches, starting one
//! namespace further on each time so that no namespace is always first.

pub struct Wrr {
    weights: Vec<u32>,
    start: usize,
}

impl Wrr {
    pub fn new(weights: Vec<u32>) -> Self {
        Wrr { weights, start: 0 }
    }

    pub fn weight(&self, ns: usize) -> u32 {
        self.weights[ns]
    }

    /// The namespaces in this round's order.
    pub fn round(&mut self) -> impl Iterator<Item = usize> + use<> {
        let n = self.weights.len();
        let start = self.start;
        self.start = (self.start + 1) % n.max(1);
        (0..n).map(move |k| (start + k) % n)
    }
}
