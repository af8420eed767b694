//! Latency CDF figures as SVG (plotters, no system fonts needed): the whole distribution from
//! P50 on the left, the tail from P99 on the right, as the papers draw them.

use std::path::Path;

use anyhow::{Result, anyhow};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
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

const COLOURS: [RGBColor; 4] = [
    RGBColor(90, 90, 90),
    RGBColor(200, 30, 30),
    RGBColor(30, 80, 200),
    RGBColor(20, 150, 60),
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

/// Writes a two-panel CDF figure of `series` (label, points) to `path`.
pub fn cdf_figure(path: &Path, title: &str, series: &[(String, Vec<(f64, f64)>)]) -> Result<()> {
    let err = |e: &dyn std::fmt::Display| anyhow!("drawing {}: {e}", path.display());
    let root = SVGBackend::new(path, (1100, 440)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let root = root
        .titled(title, ("sans-serif", 20))
        .map_err(|e| err(&e))?;
    let (left, right) = root.split_horizontally(550);
    let max_ms = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|&(x, _)| x))
        .fold(0.0, f64::max)
        * 1.05;
    for (area, from, name) in [(left, 50.0, "from P50"), (right, 99.0, "tail from P99")] {
        let mut chart = ChartBuilder::on(&area)
            .caption(name, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(52)
            .build_cartesian_2d(0.0..max_ms.max(1e-3), from..100.0)
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_desc("latency (ms)")
            .y_desc("percentile")
            .draw()
            .map_err(|e| err(&e))?;
        for (i, (label, points)) in series.iter().enumerate() {
            let colour = COLOURS[i % COLOURS.len()];
            let shown = steps_from(points, from);
            chart
                .draw_series(LineSeries::new(shown, colour.stroke_width(2)))
                .map_err(|e| err(&e))?
                .label(label.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(2))
                });
        }
        legend(&mut chart, SeriesLabelPosition::LowerRight).map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

/// Writes a grouped bar chart: one group per entry of `groups`, one bar per series in each.
pub fn bar_chart(
    path: &Path,
    title: &str,
    y_desc: &str,
    groups: &[String],
    series: &[(String, Vec<f64>)],
) -> Result<()> {
    let err = |e: &dyn std::fmt::Display| anyhow!("drawing {}: {e}", path.display());
    let root = SVGBackend::new(path, (640, 420)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let width = series.len() as f64 + 1.0;
    let top = series
        .iter()
        .flat_map(|(_, v)| v.iter().copied())
        .fold(0.0, f64::max)
        .max(1e-9);
    // Headroom for the group names and the legend above the bars.
    let max = top * 1.45;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(64)
        .build_cartesian_2d(0.0..groups.len() as f64 * width, 0.0..max)
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc(y_desc)
        .draw()
        .map_err(|e| err(&e))?;
    // Group names above each group (plotters' numeric x ticks do not fall on group centres).
    chart
        .draw_series(groups.iter().enumerate().map(|(g, name)| {
            let centre = g as f64 * width + width / 2.0;
            Text::new(name.clone(), (centre - 0.4, top * 1.1), ("sans-serif", 14))
        }))
        .map_err(|e| err(&e))?;
    for (i, (label, values)) in series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        chart
            .draw_series(values.iter().enumerate().map(|(g, &v)| {
                let x0 = g as f64 * width + 0.5 + i as f64;
                Rectangle::new([(x0, 0.0), (x0 + 1.0, v)], colour.filled())
            }))
            .map_err(|e| err(&e))?
            .label(label.clone())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], colour.filled()));
    }
    legend(&mut chart, SeriesLabelPosition::UpperRight).map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

/// Axis scale of a line chart.
#[derive(Clone, Copy, PartialEq)]
pub enum Scale {
    Linear,
    /// Base-2 logarithmic (request sizes).
    Log2,
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
    let tx = |x: f64| {
        if x_scale == Scale::Log2 {
            x.max(1e-9).log2()
        } else {
            x
        }
    };
    let points = || series.iter().flat_map(|(_, p)| p.iter());
    let (x0, x1) = points().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &(x, _)| {
        (a.min(tx(x)), b.max(tx(x)))
    });
    let (x0, x1) = if x0 < x1 {
        (x0, x1)
    } else {
        (x0 - 1.0, x0 + 1.0)
    };
    let y1 = points().map(|p| p.1).fold(0.0, f64::max).max(1e-9) * 1.25;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(64)
        .build_cartesian_2d(x0..x1 + (x1 - x0) * 0.02, 0.0..y1)
        .map_err(|e| err(&e))?;
    let log = x_scale == Scale::Log2;
    let label = |x: &f64| {
        if log {
            format!("{}", 2f64.powf(*x).round())
        } else {
            format!("{x:.1}")
        }
    };
    chart
        .configure_mesh()
        .x_desc(x_desc)
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
