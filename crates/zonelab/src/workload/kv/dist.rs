//! Key and size distributions of YCSB (core/src/main/java/site/ycsb/generator/ at
//! brianfrankcooper/YCSB @d9faaac) and db_bench's mixgraph (tools/db_bench_tool.cc, RocksDB
//! v7.8.3), on the workload's own seeded generator.

use rand::RngExt;
use rand_pcg::Pcg64Mcg;

/// YCSB's 64-bit FNV hash (`Utils.fnvhash64`), which scrambles zipfian picks and turns record
/// numbers into keys (`insertorder=hashed`).
pub fn fnv64(mut v: u64) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for _ in 0..8 {
        h ^= v & 0xff;
        v >>= 8;
        h = h.wrapping_mul(1_099_511_628_211);
    }
    // Java's Math.abs of a long.
    (h as i64).unsigned_abs()
}

/// Zeta(n, theta) = sum 1/i^theta for i in 1..=n.
fn zeta(from: u64, to: u64, theta: f64, start: f64) -> f64 {
    let mut sum = start;
    for i in from..to {
        sum += 1.0 / ((i + 1) as f64).powf(theta);
    }
    sum
}

/// YCSB's `ZipfianGenerator` (Gray et al., "Quickly generating billion-record synthetic
/// databases"), items 0..n, constant theta.
#[derive(Clone, Debug)]
pub struct Zipfian {
    items: u64,
    theta: f64,
    zetan: f64,
    zeta2: f64,
    alpha: f64,
    eta: f64,
    count_for_zeta: u64,
}

impl Zipfian {
    pub fn new(items: u64, theta: f64) -> Self {
        let zetan = zeta(0, items, theta, 0.0);
        Self::with_zeta(items, theta, zetan)
    }

    pub fn with_zeta(items: u64, theta: f64, zetan: f64) -> Self {
        let zeta2 = zeta(0, 2, theta, 0.0);
        let alpha = 1.0 / (1.0 - theta);
        let eta = (1.0 - (2.0 / items as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan);
        Zipfian {
            items,
            theta,
            zetan,
            zeta2,
            alpha,
            eta,
            count_for_zeta: items,
        }
    }

    /// A value in 0..items (item 0 the most popular).
    pub fn next(&mut self, rng: &mut Pcg64Mcg) -> u64 {
        self.next_of(rng, self.items)
    }

    /// `nextLong(itemcount)`: with a grown item count, zeta is extended incrementally.
    pub fn next_of(&mut self, rng: &mut Pcg64Mcg, items: u64) -> u64 {
        if items != self.count_for_zeta {
            if items > self.count_for_zeta {
                self.zetan = zeta(self.count_for_zeta, items, self.theta, self.zetan);
            } else {
                self.zetan = zeta(0, items, self.theta, 0.0);
            }
            self.count_for_zeta = items;
            self.eta = (1.0 - (2.0 / items as f64).powf(1.0 - self.theta))
                / (1.0 - self.zeta2 / self.zetan);
        }
        let u: f64 = rng.random();
        let uz = u * self.zetan;
        if uz < 1.0 {
            return 0;
        }
        if uz < 1.0 + 0.5f64.powf(self.theta) {
            return 1;
        }
        let v = (items as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64;
        v.min(items - 1)
    }
}

/// YCSB's `ScrambledZipfianGenerator` with the default constant 0.99: a zipfian over 10^10
/// items (precomputed zeta 26.46902820178302) hashed onto `items`, so popular keys are spread
/// over the key space.
#[derive(Clone, Debug)]
pub struct ScrambledZipfian {
    zipf: Zipfian,
    items: u64,
}

impl ScrambledZipfian {
    pub const ITEM_COUNT: u64 = 10_000_000_000;
    pub const ZETAN: f64 = 26.469_028_201_783_02;

    pub fn new(items: u64) -> Self {
        ScrambledZipfian {
            zipf: Zipfian::with_zeta(Self::ITEM_COUNT, 0.99, Self::ZETAN),
            items,
        }
    }

    pub fn next(&mut self, rng: &mut Pcg64Mcg) -> u64 {
        fnv64(self.zipf.next(rng)) % self.items
    }
}

/// YCSB's `SkewedLatestGenerator`: the most recent record the most popular.
#[derive(Clone, Debug)]
pub struct Latest {
    zipf: Zipfian,
}

impl Latest {
    pub fn new(records: u64) -> Self {
        Latest {
            zipf: Zipfian::new(records.max(1), 0.99),
        }
    }

    /// A record in 0..=last.
    pub fn next(&mut self, rng: &mut Pcg64Mcg, last: u64) -> u64 {
        let n = last + 1;
        last - self.zipf.next_of(rng, n).min(last)
    }
}

/// db_bench's `ParetoCdfInversion`: theta + sigma (u^-k - 1) / k, rounded up.
pub fn pareto(u: f64, theta: f64, k: f64, sigma: f64) -> i64 {
    let v = if k == 0.0 {
        theta - sigma * u.ln()
    } else {
        theta + sigma * (u.powf(-k) - 1.0) / k
    };
    v.ceil() as i64
}

/// db_bench mixgraph's `GenerateTwoTermExpKeys`: the key space cut into `keyrange_num` equal
/// ranges whose hotness follows a e^(b x) + c e^(d x), shuffled; within a range the power
/// model (u / a)^(1 / b) seeds the key (db_bench uses a Mersenne twister seeded with it; here
/// a SplitMix64 of the seed, an equally uniform map from seed to offset: chosen).
#[derive(Clone, Debug)]
pub struct TwoTermExpKeys {
    /// (start in 0..rand_max, keys) per range, in key order.
    starts: Vec<u64>,
    rand_max: u64,
    range_size: u64,
}

/// db_bench's `Random64(seed).Next()` stand-in.
fn split_mix(seed: u64) -> u64 {
    crate::workload::mix_seed(seed, 0x6d69_7867)
}

impl TwoTermExpKeys {
    pub fn new(num: u64, ranges: u64, a: f64, b: f64, c: f64, d: f64) -> Self {
        let ranges = ranges.max(1);
        let range_size = (num / ranges).max(1);
        let mut amplify = 0i64;
        let mut access = Vec::new();
        for pfx in (1..=ranges).rev() {
            let x = pfx as f64;
            let mut p = a * (b * x).exp() + c * (d * x).exp();
            if p < 1e-16 {
                p = 0.0;
            }
            if amplify == 0 && p > 0.0 {
                amplify = (1.0 / p).floor() as i64 + 1;
            }
            access.push(if p <= 0.0 {
                0
            } else {
                (amplify as f64 * p).floor() as u64
            });
        }
        // Saturating: with steep parameters a range's share is astronomically large.
        let rand_max: u64 = access.iter().fold(0u64, |a, &b| a.saturating_add(b));
        // Shuffle as db_bench does, seeded by rand_max so the same parameters give the same
        // layout.
        let mut state = rand_max;
        for i in 0..access.len() {
            state = split_mix(state);
            let pos = (state % ranges) as usize;
            access.swap(i, pos);
        }
        let mut starts = Vec::with_capacity(access.len());
        let mut offset = 0u64;
        for a in &access {
            starts.push(offset);
            offset = offset.saturating_add(*a);
        }
        TwoTermExpKeys {
            starts,
            rand_max: rand_max.max(1),
            range_size,
        }
    }

    /// `DistGetKeyID`.
    pub fn key(&self, ini_rand: u64, key_a: f64, key_b: f64) -> u64 {
        let r = ini_rand % self.rand_max;
        let id = self.starts.partition_point(|&s| s <= r).saturating_sub(1) as u64;
        let offset = if key_a == 0.0 || key_b == 0.0 {
            ini_rand % self.range_size
        } else {
            let u = (ini_rand % self.range_size) as f64 / self.range_size as f64;
            let seed = (u / key_a).powf(1.0 / key_b).ceil() as u64;
            split_mix(seed) % self.range_size
        };
        self.range_size * id + offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn fnv_matches_ycsb() {
        // Utils.fnvhash64(0) and (1): the offset basis through eight zero octets, and one.
        let mut h: u64 = 0xCBF2_9CE4_8422_2325;
        for _ in 0..8 {
            h = h.wrapping_mul(1_099_511_628_211);
        }
        assert_eq!(fnv64(0), (h as i64).unsigned_abs());
        assert_ne!(fnv64(1), fnv64(0));
    }

    #[test]
    fn zipfian_099_favours_the_first_items() {
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let mut z = Zipfian::new(1000, 0.99);
        let mut counts = vec![0u32; 1000];
        for _ in 0..100_000 {
            counts[z.next(&mut rng) as usize] += 1;
        }
        // P(0) = 1 / zeta(1000, 0.99) ~ 0.13.
        let p0 = counts[0] as f64 / 100_000.0;
        assert!((0.12..0.145).contains(&p0), "{p0}");
        assert!(counts[0] > counts[1] && counts[1] > counts[10] && counts[10] > counts[500]);
    }

    #[test]
    fn scrambled_zipfian_stays_in_range_and_is_skewed() {
        let mut rng = Pcg64Mcg::seed_from_u64(2);
        let mut z = ScrambledZipfian::new(10_000);
        let mut counts = std::collections::HashMap::new();
        for _ in 0..50_000 {
            let k = z.next(&mut rng);
            assert!(k < 10_000);
            *counts.entry(k).or_insert(0u32) += 1;
        }
        let mut c: Vec<u32> = counts.into_values().collect();
        c.sort_unstable_by(|a, b| b.cmp(a));
        let top: u32 = c.iter().take(100).sum();
        assert!(top > 50_000 / 5, "the top 1% of keys take over 20%: {top}");
    }

    #[test]
    fn latest_prefers_recent_records() {
        let mut rng = Pcg64Mcg::seed_from_u64(3);
        let mut l = Latest::new(1000);
        let recent = (0..10_000).filter(|_| l.next(&mut rng, 999) >= 990).count();
        assert!(recent > 3_000, "{recent}");
    }

    #[test]
    fn pareto_gives_mixgraph_value_sizes() {
        // value_k 0.2615, sigma 25.45: mean of the clamped sizes ~34 B (host-stack.md (f)).
        let n = 100_000;
        let mut sum = 0i64;
        for i in 0..n {
            let u = (i as f64 + 0.5) / n as f64;
            let mut v = pareto(u, 0.0, 0.2615, 25.45);
            if v < 10 {
                v = 10;
            } else if v > 1024 {
                v %= 1024;
            }
            sum += v;
        }
        let mean = sum as f64 / n as f64;
        assert!((30.0..38.0).contains(&mean), "{mean}");
    }

    #[test]
    fn two_term_exp_keys_cover_the_key_space() {
        let g = TwoTermExpKeys::new(1_000_000, 30, 14.18, -2.917, 0.0164, -0.08082);
        let mut rng = Pcg64Mcg::seed_from_u64(4);
        for _ in 0..10_000 {
            let r: u64 = rng.random_range(0..1_000_000);
            assert!(g.key(r, 0.002312, 0.3467) < 1_000_000);
        }
    }
}
