//! Latency CDF figures as SVG (plotters, no system fonts needed): the whole distribution from
//! P50 on the left, the tail from P99 on the right, as the papers draw them.

use std::path::Path;

use anyhow::{Result, anyhow};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use zonelab::metrics::{Layer, Metrics, OpKind};

/// (latency in ms, percentile) points of one device command kind's CDF, all tenants together.
pub fn cdf_points(metrics: &Metrics, kind: OpKind) -> Vec<(f64, f64)> {
    let h = metrics
        .merged(Layer::Device, kind)
        .unwrap_or_else(zonelab::metrics::latency_histogram);
    zonelab::metrics::cdf(&h)
        .into_iter()
        .map(|(ns, p)| (ns as f64 / 1e6, p))
        .collect()
}

const COLOURS: [RGBColor; 6] = [
    RGBColor(90, 90, 90),
    RGBColor(200, 30, 30),
    RGBColor(30, 80, 200),
    RGBColor(20, 150, 60),
    RGBColor(230, 140, 0),
    RGBColor(130, 60, 170),
];

/// The CDF as a staircase (it is flat between recorded values), starting at percentile `from`.
fn steps_from(points: &[(f64, f64)], from: f64) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    let mut last: Option<(f64, f64)> = None;
    for &(x, p) in points {
        if p >= from {
            match last {
                Some((_, lp)) => out.push((x, lp.max(from))),
                None => out.push((x, from)),
            }
            out.push((x, p));
        }
        last = Some((x, p));
    }
    out
}

type Chart<'a> = ChartContext<'a, SVGBackend<'a>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// The series legend, boxed, at `position`.
fn legend(
    chart: &mut Chart<'_>,
    position: SeriesLabelPosition,
) -> Result<(), impl std::fmt::Display> {
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE)
        .border_style(BLACK)
        .draw()
        .map_err(|e| e.to_string())
}

/// Where a latency axis starts and ends: whole decades around every latency (ms), in log10(ms).
fn decades(ms: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = ms
        .map(log10_ms)
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(x), b.max(x))
        });
    let (lo, hi) = (lo.floor(), hi.ceil());
    if lo.is_finite() && hi > lo {
        (lo, hi)
    } else if lo.is_finite() {
        (lo, lo + 1.0)
    } else {
        (-3.0, 0.0)
    }
}

/// log10 of a latency in ms; a recorded 0 sits at the axis' floor of 1 ns.
fn log10_ms(ms: f64) -> f64 {
    ms.max(1e-6).log10()
}

/// The label of a log10 tick: the power of ten it stands for, blank between powers.
fn pow10_label(x: f64) -> String {
    if (x - x.round()).abs() > 1e-9 {
        return String::new();
    }
    let k = x.round() as i32;
    if k >= 0 {
        format!("{}", 10u64.pow(k as u32))
    } else {
        format!("{:.*}", (-k) as usize, 10f64.powi(k))
    }
}

/// A percentile in "nines" (-log10 of the fraction above it): P90 is 1, P99 2, P99.9 3, so
/// every further nine of the tail gets the same height. P100 sits at `top`.
fn nines(p: f64, top: f64) -> f64 {
    if p >= 100.0 {
        top
    } else {
        (-(1.0 - p / 100.0).log10()).min(top)
    }
}

/// The label of a whole number of nines: 2 -> "99", 3 -> "99.9"; `top` is P100.
fn nines_label(y: f64, top: f64) -> String {
    if (y - y.round()).abs() > 1e-9 {
        String::new()
    } else if y.round() >= top {
        "100".into()
    } else {
        let k = y.round() as usize;
        let mut s = "9".repeat(k.min(2));
        if k > 2 {
            s.push('.');
            s.push_str(&"9".repeat(k - 2));
        }
        s
    }
}

/// Where the tail panel's axis ends: one nine above the deepest percentile below P100 that
/// any series recorded, and at least P99.9.
fn nines_top(series: &[(String, Vec<(f64, f64)>)]) -> f64 {
    series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|&(_, p)| p))
        .filter(|&p| p < 100.0)
        .map(|p| (nines(p, f64::INFINITY) + 1e-9).floor() + 1.0)
        .fold(3.0, f64::max)
}

/// Writes a two-panel CDF figure of `series` (label, points) to `path`: the distribution from
/// P50, and the tail from P99 to P100 on a scale of nines (each of P99, P99.9, P99.99 ... as
/// tall as the others). Latency is on a log axis in both, so that a tail 10^4 times the
/// median stays as readable as the median. `paper_p100` marks the paper's P100 of some series
/// (index into `series`, ms) as hollow circles in the series' colour at the top of the tail.
pub fn cdf_figure(
    path: &Path,
    title: &str,
    series: &[(String, Vec<(f64, f64)>)],
    paper_p100: &[(usize, f64)],
) -> Result<()> {
    let err = |e: &dyn std::fmt::Display| anyhow!("drawing {}: {e}", path.display());
    let root = SVGBackend::new(path, (1100, 440)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let root = root
        .titled(title, ("sans-serif", 20))
        .map_err(|e| err(&e))?;
    let (left, right) = root.split_horizontally(550);
    let measured = series.iter().flat_map(|(_, p)| p.iter().map(|&(ms, _)| ms));
    let (lo, hi) = decades(measured.chain(paper_p100.iter().map(|&(_, ms)| ms)));
    let top = nines_top(series);
    for (area, tail) in [(left, false), (right, true)] {
        let (name, y0, y1) = if tail {
            ("tail from P99 (nines scale)", 2.0, top)
        } else {
            ("from P50", 50.0, 100.0)
        };
        let y = |p: f64| if tail { nines(p, top) } else { p };
        let mut chart = ChartBuilder::on(&area)
            .caption(name, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(60)
            .build_cartesian_2d(lo..hi, y0..y1)
            .map_err(|e| err(&e))?;
        let mut mesh = chart.configure_mesh();
        mesh.x_labels((hi - lo) as usize + 1)
            .x_label_formatter(&|x| pow10_label(*x))
            .x_desc("latency (ms, log scale)")
            .y_desc("percentile");
        let label = |v: &f64| nines_label(*v, top);
        if tail {
            mesh.y_labels((top - 2.0) as usize + 1)
                .y_label_formatter(&label);
        }
        mesh.draw().map_err(|e| err(&e))?;
        for (i, (label, points)) in series.iter().enumerate() {
            let colour = COLOURS[i % COLOURS.len()];
            let shown: Vec<(f64, f64)> = points.iter().map(|&(x, p)| (log10_ms(x), y(p))).collect();
            chart
                .draw_series(LineSeries::new(
                    steps_from(&shown, y0),
                    colour.stroke_width(2),
                ))
                .map_err(|e| err(&e))?
                .label(label.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(2))
                });
        }
        if tail && !paper_p100.is_empty() {
            chart
                .draw_series(paper_p100.iter().map(|&(i, ms)| {
                    let colour = COLOURS[i % COLOURS.len()];
                    Circle::new((log10_ms(ms), top), 6, colour.stroke_width(2))
                }))
                .map_err(|e| err(&e))?
                .label("the paper's P100")
                .legend(|(x, y)| Circle::new((x + 9, y), 5, BLACK.stroke_width(2)));
        }
        legend(&mut chart, SeriesLabelPosition::LowerRight).map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

/// A bar's value as printed above it: three significant figures, and "0" for a zero bar, which
/// would otherwise be invisible.
fn bar_label(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        return "0".into();
    }
    // Decimals for three significant figures, one fewer where rounding carries into a new
    // digit (99.97 prints as 100, not 100.0); none from 100 up, at most three below 1.
    let digits = |x: f64| x.log10().floor() as i32;
    let mut decimals = (2 - digits(a)).clamp(0, 3);
    let scale = 10f64.powi(decimals);
    if decimals > 0 && digits((a * scale).round() / scale) > digits(a) {
        decimals -= 1;
    }
    format!("{v:.*}", decimals as usize)
}

/// Each group's name under its bars, in the label area, at the pixel `centres` of the groups'
/// feet (plotters' numeric x ticks do not fall on group centres).
fn names_under(
    root: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    groups: &[String],
    centres: &[(i32, i32)],
) -> Result<(), String> {
    let style =
        TextStyle::from(("sans-serif", 14).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
    for (name, &(x, y)) in groups.iter().zip(centres) {
        root.draw(&Text::new(name.clone(), (x, y + 8), style.clone()))
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// A bar chart's y range: headroom above for the legend and the value labels, room below for
/// negative ones (from 0 when there are none).
fn bar_y_range(series: &[(String, Vec<f64>)]) -> (f64, f64) {
    let values = || series.iter().flat_map(|(_, v)| v.iter().copied());
    let top = values().fold(0.0, f64::max);
    let bottom = values().fold(0.0, f64::min);
    let span = (top - bottom).max(1e-9);
    let y0 = if bottom < 0.0 {
        bottom - span * 0.12
    } else {
        0.0
    };
    (y0, top + span * 0.4)
}

/// Writes a grouped bar chart: one group per entry of `groups`, named under its bars, one bar
/// per series in each, every bar labelled with its value. Negative values hang below a zero line.
pub fn bar_chart(
    path: &Path,
    title: &str,
    y_desc: &str,
    groups: &[String],
    series: &[(String, Vec<f64>)],
) -> Result<()> {
    let err = |e: &dyn std::fmt::Display| anyhow!("drawing {}: {e}", path.display());
    let bars = groups.len() * series.len();
    let width_px = 640.max(140 + 36 * (bars + groups.len()) as u32);
    let root = SVGBackend::new(path, (width_px, 440)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let width = series.len() as f64 + 1.0;
    let (y0, y1) = bar_y_range(series);
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(64)
        .build_cartesian_2d(0.0..groups.len() as f64 * width, y0..y1)
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc(y_desc)
        .draw()
        .map_err(|e| err(&e))?;
    if y0 < 0.0 {
        let zero = vec![(0.0, 0.0), (groups.len() as f64 * width, 0.0)];
        chart
            .draw_series(std::iter::once(PathElement::new(zero, BLACK)))
            .map_err(|e| err(&e))?;
    }
    let above =
        TextStyle::from(("sans-serif", 11).into_font()).pos(Pos::new(HPos::Center, VPos::Bottom));
    let below = above.pos(Pos::new(HPos::Center, VPos::Top));
    for (i, (label, values)) in series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let x = |g: usize| g as f64 * width + 0.5 + i as f64;
        chart
            .draw_series(values.iter().enumerate().map(|(g, &v)| {
                Rectangle::new([(x(g) + 0.05, 0.0), (x(g) + 0.95, v)], colour.filled())
            }))
            .map_err(|e| err(&e))?
            .label(label.clone())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], colour.filled()));
        chart
            .draw_series(values.iter().enumerate().map(|(g, &v)| {
                let style = if v < 0.0 { &below } else { &above };
                Text::new(bar_label(v), (x(g) + 0.5, v), style.clone())
            }))
            .map_err(|e| err(&e))?;
    }
    let centres: Vec<(i32, i32)> = (0..groups.len())
        .map(|g| chart.backend_coord(&(g as f64 * width + width / 2.0, y0)))
        .collect();
    names_under(&root, groups, &centres).map_err(|e| err(&e))?;
    legend(&mut chart, SeriesLabelPosition::UpperRight).map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

/// Axis scale of a line chart.
#[derive(Clone, Copy, PartialEq)]
pub enum Scale {
    Linear,
    /// Base-2 logarithmic (request sizes), ticked at powers of two.
    Log2,
}

/// Where `x` sits on a line chart's x axis: its base-2 logarithm on a log axis.
fn axis_x(x: f64, log: bool) -> f64 {
    if log { x.max(1e-9).log2() } else { x }
}

/// A line chart's x range over every series' points, on the axis's scale: whole powers of two
/// on a log axis (so that its ticks fall on them), a little room on the right on a linear one.
fn line_x_range(series: &[(String, Vec<(f64, f64)>)], log: bool) -> (f64, f64) {
    let tx = |x: f64| axis_x(x, log);
    let points = series.iter().flat_map(|(_, p)| p.iter());
    let (x0, x1) = points.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &(x, _)| {
        (a.min(tx(x)), b.max(tx(x)))
    });
    let (x0, x1) = if x0 < x1 {
        (x0, x1)
    } else {
        (x0 - 1.0, x0 + 1.0)
    };
    if log {
        (x0.floor(), x1.ceil())
    } else {
        (x0, x1 + (x1 - x0) * 0.02)
    }
}

/// Writes a line chart of `series` (label, (x, y) points) with markers at the points.
pub fn line_chart(
    path: &Path,
    title: &str,
    (x_desc, x_scale): (&str, Scale),
    y_desc: &str,
    series: &[(String, Vec<(f64, f64)>)],
) -> Result<()> {
    let err = |e: &dyn std::fmt::Display| anyhow!("drawing {}: {e}", path.display());
    let root = SVGBackend::new(path, (760, 440)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let log = x_scale == Scale::Log2;
    let tx = |x: f64| axis_x(x, log);
    let (x0, x1) = line_x_range(series, log);
    let y1 = series
        .iter()
        .flat_map(|(_, p)| p.iter())
        .map(|p| p.1)
        .fold(0.0, f64::max)
        .max(1e-9)
        * 1.25;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(64)
        .build_cartesian_2d(x0..x1, 0.0..y1)
        .map_err(|e| err(&e))?;
    let label = |x: &f64| {
        if !log {
            format!("{x:.1}")
        } else if (x - x.round()).abs() > 1e-9 {
            String::new()
        } else {
            format!("{}", 2f64.powf(x.round()))
        }
    };
    let mut mesh = chart.configure_mesh();
    if log {
        mesh.x_labels((x1 - x0) as usize + 1);
    }
    mesh.x_desc(x_desc)
        .y_desc(y_desc)
        .x_label_formatter(&label)
        .draw()
        .map_err(|e| err(&e))?;
    for (i, (name, pts)) in series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let shown: Vec<(f64, f64)> = pts.iter().map(|&(x, y)| (tx(x), y)).collect();
        chart
            .draw_series(LineSeries::new(shown.clone(), colour.stroke_width(2)))
            .map_err(|e| err(&e))?
            .label(name.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(2))
            });
        if shown.len() <= 64 {
            chart
                .draw_series(shown.iter().map(|&p| Circle::new(p, 3, colour.filled())))
                .map_err(|e| err(&e))?;
        }
    }
    legend(&mut chart, SeriesLabelPosition::UpperRight).map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::steps_from;
    use super::{Scale, bar_chart, bar_label, cdf_figure, decades, line_chart, pow10_label};
    use super::{nines, nines_label, nines_top};

    /// The figures say what a reader needs: group names, a value on every bar (a 0 and a
    /// negative one too), latency decades in ms, request sizes at powers of two.
    #[test]
    fn figures_carry_their_labels() {
        let tmp = tempfile::Builder::new()
            .prefix("zonelab-plot-")
            .tempdir()
            .expect("a temporary directory");
        let text = |name: &str| std::fs::read_to_string(tmp.path().join(name)).expect("svg");
        let has = |svg: &str, label: &str| {
            svg.split("</text>")
                .any(|t| t.rsplit('>').next().map(str::trim) == Some(label))
        };
        bar_chart(
            &tmp.path().join("bars.svg"),
            "gain",
            "% gain",
            &["fileserver".into(), "varmail".into()],
            &[
                ("ZoneLab".into(), vec![0.0, -5.0]),
                ("paper".into(), vec![12.0, 3.0]),
            ],
        )
        .expect("bars");
        let bars = text("bars.svg");
        for label in [
            "fileserver",
            "varmail",
            "0",
            "-5.00",
            "12.0",
            "3.00",
            "% gain",
        ] {
            assert!(has(&bars, label), "bar chart lacks {label}");
        }
        let series = vec![(
            "a".to_string(),
            vec![(0.004, 50.0), (2.0, 99.95), (321.0, 100.0)],
        )];
        cdf_figure(&tmp.path().join("cdf.svg"), "cdf", &series, &[(0, 5000.0)]).expect("cdf");
        let cdf = text("cdf.svg");
        for label in [
            "0.001",
            "1",
            "1000",
            "10000",
            "the paper&apos;s P100", // the SVG escapes the apostrophe
            "latency (ms, log scale)",
            "99",
            "99.9",
            "100",
        ] {
            assert!(has(&cdf, label), "CDF lacks {label}");
        }
        let sizes = vec![("r".to_string(), vec![(4.0, 1.0), (128.0, 2.0)])];
        let size_axis = ("request size (KiB)", Scale::Log2);
        line_chart(&tmp.path().join("l.svg"), "l", size_axis, "MiB/s", &sizes).expect("line");
        let line = text("l.svg");
        for label in ["4", "8", "16", "32", "64", "128"] {
            assert!(has(&line, label), "size axis lacks {label}");
        }
    }

    #[test]
    fn log_latency_axis_spans_whole_decades_labelled_in_ms() {
        let series = [("a".to_string(), vec![(0.004, 50.0), (321.0, 100.0)])];
        assert_eq!(
            decades(series.iter().flat_map(|(_, p)| p.iter().map(|q| q.0))),
            (-3.0, 3.0)
        );
        assert_eq!(pow10_label(-3.0), "0.001");
        assert_eq!(pow10_label(2.0), "100");
        assert_eq!(pow10_label(0.5), "");
    }

    #[test]
    fn the_tail_axis_gives_every_nine_the_same_height() {
        assert!((nines(99.0, 9.0) - 2.0).abs() < 1e-9);
        assert!((nines(99.99, 9.0) - 4.0).abs() < 1e-9);
        assert_eq!(nines(100.0, 6.0), 6.0);
        assert_eq!(nines_label(2.0, 6.0), "99");
        assert_eq!(nines_label(5.0, 6.0), "99.999");
        assert_eq!(nines_label(6.0, 6.0), "100");
        // 10,000 samples: the last below P100 is P99.99, so the axis ends one nine above.
        let s = vec![(
            "a".to_string(),
            vec![(1.0, 50.0), (2.0, 99.99), (3.0, 100.0)],
        )];
        assert_eq!(nines_top(&s), 5.0);
    }

    #[test]
    fn every_bar_value_is_printed_a_zero_too() {
        assert_eq!(bar_label(0.0), "0");
        assert_eq!(bar_label(-12.34), "-12.3");
        assert_eq!(bar_label(1234.4), "1234");
        assert_eq!(bar_label(0.01234), "0.012");
        assert_eq!(bar_label(99.97), "100");
        assert_eq!(bar_label(9.996), "10.0");
        assert_eq!(bar_label(70.06), "70.1");
    }

    #[test]
    fn staircase_starts_at_the_cut_and_steps_up() {
        let pts = [(1.0, 50.0), (2.0, 98.0), (5.0, 100.0)];
        assert_eq!(steps_from(&pts, 99.0), vec![(5.0, 99.0), (5.0, 100.0)]);
        assert_eq!(
            steps_from(&pts, 50.0),
            vec![
                (1.0, 50.0),
                (1.0, 50.0),
                (2.0, 50.0),
                (2.0, 98.0),
                (5.0, 98.0),
                (5.0, 100.0)
            ]
        );
    }
}
