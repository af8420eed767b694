//! The fit's numerical steps: Gauss-Newton's normal equations, a linear solve, and a
//! golden-section search.

/// The Gauss-Newton normal equations of Jacobian `jac` (one row per residual, `n` columns)
/// and residuals `r`: (JᵀJ, Jᵀr).
pub(super) fn normal_equations(jac: &[Vec<f64>], r: &[f64], n: usize) -> (Vec<Vec<f64>>, Vec<f64>) {
    let mut jtj = vec![vec![0.0; n]; n];
    let mut jtr = vec![0.0; n];
    for (i, row) in jac.iter().enumerate() {
        for a in 0..n {
            jtr[a] += row[a] * r[i];
            for b in 0..n {
                jtj[a][b] += row[a] * row[b];
            }
        }
    }
    (jtj, jtr)
}

/// Solves `m x = b` by Gaussian elimination with partial pivoting; None if singular.
pub(super) fn solve(mut m: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for c in 0..n {
        let p = (c..n).max_by(|&i, &j| m[i][c].abs().total_cmp(&m[j][c].abs()))?;
        if m[p][c].abs() < 1e-15 {
            return None;
        }
        m.swap(c, p);
        b.swap(c, p);
        let (top, below) = m.split_at_mut(c + 1);
        let pivot = &top[c];
        for (i, row) in below.iter_mut().enumerate() {
            let f = row[c] / pivot[c];
            for (x, p) in row[c..].iter_mut().zip(&pivot[c..]) {
                *x -= f * p;
            }
            b[c + 1 + i] -= f * b[c];
        }
    }
    let mut x = vec![0.0; n];
    for c in (0..n).rev() {
        let s: f64 = (c + 1..n).map(|k| m[c][k] * x[k]).sum();
        x[c] = (b[c] - s) / m[c][c];
    }
    Some(x)
}

/// Golden-section search for the minimum of `f` on [lo, hi], starting from the better of
/// `start` and the search's own points; `steps` narrowings.
pub(super) fn golden(
    f: &mut dyn FnMut(f64) -> f64,
    lo: f64,
    hi: f64,
    start: f64,
    steps: u32,
) -> f64 {
    const R: f64 = 0.618_033_988_749_894_8;
    let (mut a, mut b) = (lo, hi);
    let mut best = (start, f(start));
    let mut c = b - R * (b - a);
    let mut d = a + R * (b - a);
    let (mut fc, mut fd) = (f(c), f(d));
    for _ in 0..steps {
        for (x, fx) in [(c, fc), (d, fd)] {
            if fx < best.1 {
                best = (x, fx);
            }
        }
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - R * (b - a);
            fc = f(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + R * (b - a);
            fd = f(d);
        }
    }
    for (x, fx) in [(c, fc), (d, fd)] {
        if fx < best.1 {
            best = (x, fx);
        }
    }
    best.0
}
