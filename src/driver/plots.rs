//! The sweep's two SVG plots (plotters, SVG backend): schedules explored to the bug per
//! strategy and program, and bugs found against executions.

use super::sweep::{Config, ProgramInfo, Row};
use super::tables::explored_per_find;
use plotters::prelude::*;
use std::path::Path;

const COLORS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

/// The end of the executions axis: twice the largest count plotted (at least 20).
fn axis_end(data: &std::collections::BTreeMap<&'static str, Vec<(usize, Option<u64>)>>) -> f64 {
    let most = data.values().flatten().filter_map(|(_, e)| *e).max();
    most.unwrap_or(1).max(10) as f64 * 2.0
}

fn plot_error(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow::anyhow!("cannot draw the plot: {e}")
}

/// Schedules explored to the bug (log scale) per buggy program, one series per strategy.
pub fn schedules_to_bug(
    config: &Config,
    programs: &[ProgramInfo],
    rows: &[Row],
    path: &Path,
) -> anyhow::Result<()> {
    let buggy: Vec<&ProgramInfo> = programs.iter().filter(|p| !p.correct).collect();
    let data = explored_per_find(config, programs, rows);
    let top = axis_end(&data);
    let width = (200 + 40 * buggy.len() as u32).max(640);
    let root = SVGBackend::new(path, (width, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(plot_error)?;
    let n = buggy.len().max(1);
    let mut chart = ChartBuilder::on(&root)
        .caption("Schedules explored to the bug", ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(110)
        .y_label_area_size(60)
        .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), (1f64..top).log_scale())
        .map_err(plot_error)?;
    let names: Vec<String> = buggy.iter().map(|p| p.name.clone()).collect();
    chart
        .configure_mesh()
        .x_labels(n)
        .x_label_formatter(&|x| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 {
                names.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .x_label_style(
            ("sans-serif", 11)
                .into_font()
                .transform(FontTransform::Rotate90),
        )
        .y_desc("executions (log)")
        .draw()
        .map_err(plot_error)?;
    let strategies = data.len().max(1) as f64;
    for (k, (name, points)) in data.iter().enumerate() {
        let color = COLORS[k % COLORS.len()];
        let offset = (k as f64 - (strategies - 1.0) / 2.0) * 0.6 / strategies;
        chart
            .draw_series(points.iter().filter_map(|(i, e)| {
                e.map(|e| Circle::new((*i as f64 + offset, e.max(1) as f64), 4, color.filled()))
            }))
            .map_err(plot_error)?
            .label(*name)
            .legend(move |(x, y)| Circle::new((x + 8, y), 4, color.filled()));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(plot_error)?;
    root.present().map_err(plot_error)?;
    Ok(())
}

/// Bugs found (buggy program × seed) within x executions, one step curve per strategy.
pub fn bugs_vs_executions(
    config: &Config,
    programs: &[ProgramInfo],
    rows: &[Row],
    path: &Path,
) -> anyhow::Result<()> {
    let data = explored_per_find(config, programs, rows);
    let total = data.values().map(Vec::len).max().unwrap_or(0).max(1);
    let right = axis_end(&data);
    let root = SVGBackend::new(path, (720, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(plot_error)?;
    let mut chart = ChartBuilder::on(&root)
        .caption("Bugs found against executions", ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d((1f64..right).log_scale(), 0f64..total as f64)
        .map_err(plot_error)?;
    chart
        .configure_mesh()
        .x_desc("executions (log)")
        .y_desc("bugs found (program × seed)")
        .draw()
        .map_err(plot_error)?;
    for (k, (name, points)) in data.iter().enumerate() {
        let color = COLORS[k % COLORS.len()];
        let mut finds: Vec<f64> = points
            .iter()
            .filter_map(|(_, e)| e.map(|e| e.max(1) as f64))
            .collect();
        finds.sort_by(|a, b| a.total_cmp(b));
        let mut curve = vec![(1.0, 0.0)];
        for (i, x) in finds.iter().enumerate() {
            curve.push((*x, i as f64));
            curve.push((*x, (i + 1) as f64));
        }
        curve.push((right, finds.len() as f64));
        chart
            .draw_series(LineSeries::new(curve, color.stroke_width(2)))
            .map_err(plot_error)?
            .label(*name)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(plot_error)?;
    root.present().map_err(plot_error)?;
    Ok(())
}
