//! The sweep's two SVG plots (plotters, SVG backend): schedules explored to the bug per
//! strategy and program, and bugs found against executions. In both, the legend has a panel of
//! its own to the right of the data and nothing is written over the data: program names are the
//! x axis's labels, written downwards below it. A seed that did not find the bug and a search
//! that errored are drawn with shapes of their own, each with a legend entry.

use super::sweep::{Config, ProgramInfo, Row};
use super::tables::{explored_per_find, Find};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::collections::BTreeMap;
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

/// The colour of the shape entries of a legend (they hold for every strategy).
const INK: RGBColor = RGBColor(80, 80, 80);

/// The legend panel's width, in pixels.
const LEGEND_WIDTH: u32 = 260;

type Data = BTreeMap<&'static str, Vec<(usize, Find)>>;

/// A part of a plot, in pixels.
type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// The end of the executions axis: twice the largest count plotted (at least 20).
fn axis_end(data: &Data) -> f64 {
    let most = data
        .values()
        .flatten()
        .filter_map(|(_, f)| match f {
            Find::Found(e) | Find::NotFound(e) => Some(*e),
            Find::Error => None,
        })
        .max();
    most.unwrap_or(1).max(10) as f64 * 2.0
}

fn plot_error(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow::anyhow!("cannot draw the plot: {e}")
}

/// A legend entry's symbol.
#[derive(Clone, Copy)]
enum Symbol {
    /// A strategy's colour.
    Swatch(RGBColor),
    /// A strategy's line.
    Line(RGBColor),
    Dot,
    Triangle,
    Cross,
}

/// The marker of one find, in the strategy's colour: a dot for a find, a triangle for a seed
/// that did not find the bug, a cross for a search error.
fn marker<DB: DrawingBackend>(
    find: Find,
    at: (f64, f64),
    color: RGBColor,
) -> DynElement<'static, DB, (f64, f64)> {
    match find {
        Find::Found(_) => Circle::new(at, 4, color.filled()).into_dyn(),
        Find::NotFound(_) => TriangleMarker::new(at, 5, color.stroke_width(2)).into_dyn(),
        Find::Error => Cross::new(at, 4, color.stroke_width(2)).into_dyn(),
    }
}

/// Draws `entries` top-down in the legend panel `area`.
fn legend(
    area: &DrawingArea<SVGBackend, Shift>,
    entries: &[(Symbol, String)],
) -> anyhow::Result<()> {
    let text = ("sans-serif", 12)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    for (k, (symbol, label)) in entries.iter().enumerate() {
        let (x, y) = (14, 40 + 20 * k as i32);
        match *symbol {
            Symbol::Swatch(c) => area.draw(&Rectangle::new(
                [(x - 5, y - 5), (x + 5, y + 5)],
                c.filled(),
            )),
            Symbol::Line(c) => area.draw(&PathElement::new(
                vec![(x - 8, y), (x + 8, y)],
                c.stroke_width(2),
            )),
            Symbol::Dot => area.draw(&Circle::new((x, y), 4, INK.filled())),
            Symbol::Triangle => area.draw(&TriangleMarker::new((x, y), 5, INK.stroke_width(2))),
            Symbol::Cross => area.draw(&Cross::new((x, y), 4, INK.stroke_width(2))),
        }
        .map_err(plot_error)?;
        area.draw(&Text::new(label.clone(), (x + 16, y), text.clone()))
            .map_err(plot_error)?;
    }
    Ok(())
}

/// The white canvas of a plot with its title, split into the data's part and the legend's.
fn canvas<'a>(
    path: &'a Path,
    size: (u32, u32),
    title: &str,
) -> anyhow::Result<(Area<'a>, Area<'a>, Area<'a>)> {
    let root = SVGBackend::new(path, size).into_drawing_area();
    root.fill(&WHITE).map_err(plot_error)?;
    let body = root.titled(title, ("sans-serif", 18)).map_err(plot_error)?;
    let (data, key) = body.split_horizontally(size.0 - LEGEND_WIDTH);
    Ok((root, data, key))
}

/// Schedules explored to the bug (log scale) per buggy program, one colour per strategy.
pub fn schedules_to_bug(
    config: &Config,
    programs: &[ProgramInfo],
    rows: &[Row],
    path: &Path,
) -> anyhow::Result<()> {
    let names: Vec<&str> = programs
        .iter()
        .filter(|p| !p.correct)
        .map(|p| p.name.as_str())
        .collect();
    let data = explored_per_find(config, programs, rows);
    let top = axis_end(&data);
    // A search error has no count: its cross sits on a row of its own at the top.
    let error_row = top / 1.4;
    let n = names.len().max(1);
    let width = (90 + 36 * n as u32).max(360) + LEGEND_WIDTH;
    // The names go downwards below the axis: room for the longest (about 6 px a letter).
    let longest = names.iter().map(|s| s.chars().count()).max().unwrap_or(0) as u32;
    let label_room = 20 + 6 * longest;
    let (root, area, key) = canvas(
        path,
        (width, 360 + label_room),
        "Schedules explored to the bug",
    )?;
    let mut chart = ChartBuilder::on(&area)
        .margin(12)
        .x_label_area_size(label_room)
        .y_label_area_size(60)
        // From below 1, so that a find at the first execution is not on the axis.
        .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), (0.7f64..top).log_scale())
        .map_err(plot_error)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_label_formatter(&|y| format!("{y:.0}"))
        .y_desc("executions (log)")
        .draw()
        .map_err(plot_error)?;
    let name_style = ("sans-serif", 12)
        .into_font()
        .transform(FontTransform::Rotate90)
        .color(&BLACK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    for (i, name) in names.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(i as f64, 0.7));
        root.draw(&Text::new(name.to_string(), (x, y + 8), name_style.clone()))
            .map_err(plot_error)?;
    }
    let strategies = data.len().max(1) as f64;
    for (k, points) in data.values().enumerate() {
        let color = COLORS[k % COLORS.len()];
        let offset = (k as f64 - (strategies - 1.0) / 2.0) * 0.6 / strategies;
        chart
            .draw_series(points.iter().map(|&(i, find)| {
                let y = match find {
                    Find::Found(e) | Find::NotFound(e) => e.max(1) as f64,
                    Find::Error => error_row,
                };
                marker(find, (i as f64 + offset, y), color)
            }))
            .map_err(plot_error)?;
    }
    let mut entries: Vec<(Symbol, String)> = data
        .keys()
        .enumerate()
        .map(|(k, name)| (Symbol::Swatch(COLORS[k % COLORS.len()]), name.to_string()))
        .collect();
    entries.push((Symbol::Dot, "found (executions to it)".into()));
    entries.push((Symbol::Triangle, "not found (executions run)".into()));
    entries.push((Symbol::Cross, "search error (no verdict)".into()));
    legend(&key, &entries)?;
    root.present().map_err(plot_error)?;
    Ok(())
}

/// Bugs found (buggy program × seed) within x executions, one step curve per strategy; the
/// legend counts each strategy's finds, misses and errors.
pub fn bugs_vs_executions(
    config: &Config,
    programs: &[ProgramInfo],
    rows: &[Row],
    path: &Path,
) -> anyhow::Result<()> {
    let data = explored_per_find(config, programs, rows);
    let total = data.values().map(Vec::len).max().unwrap_or(0).max(1);
    let right = axis_end(&data);
    let (root, area, key) = canvas(
        path,
        (720 + LEGEND_WIDTH, 480),
        "Bugs found against executions",
    )?;
    let mut chart = ChartBuilder::on(&area)
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d((1f64..right).log_scale(), 0f64..total as f64)
        .map_err(plot_error)?;
    chart
        .configure_mesh()
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_labels(total + 1)
        .y_label_formatter(&|y| format!("{y:.0}"))
        .x_desc("executions (log)")
        .y_desc("bugs found (program × seed)")
        .draw()
        .map_err(plot_error)?;
    let mut entries = Vec::new();
    for (k, (name, points)) in data.iter().enumerate() {
        let color = COLORS[k % COLORS.len()];
        let mut finds: Vec<f64> = points
            .iter()
            .filter_map(|(_, f)| match f {
                Find::Found(e) => Some((*e).max(1) as f64),
                _ => None,
            })
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
            .map_err(plot_error)?;
        let count = |want: fn(&Find) -> bool| points.iter().filter(|(_, f)| want(f)).count();
        let missed = count(|f| matches!(f, Find::NotFound(_)));
        let errors = count(|f| matches!(f, Find::Error));
        entries.push((
            Symbol::Line(color),
            format!(
                "{name}: {} found, {missed} not found, {errors} errors",
                finds.len()
            ),
        ));
    }
    legend(&key, &entries)?;
    root.present().map_err(plot_error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::strategy::lookup;
    use std::path::PathBuf;

    fn program(name: &str, correct: bool) -> ProgramInfo {
        ProgramInfo {
            name: name.into(),
            correct,
            sloc: 10,
            threads: 2,
            variables: 1,
            sites: 1,
            expected: "-".into(),
            runnable: None,
            error: None,
        }
    }

    fn row(program: &str, strategy: &str, executions: u64, found: bool, error: bool) -> Row {
        Row::for_test(program, strategy, executions, found, error)
    }

    /// The number after `name="` in one SVG tag.
    fn attr(tag: &str, name: &str) -> f64 {
        let from = tag.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        let text = &tag[from..];
        text[..text.find('"').unwrap()].parse().unwrap()
    }

    /// Points (x, y) in pixels.
    type Points = Vec<(f64, f64)>;

    /// The points of every marker drawn in a strategy's colour, and the texts with their tags.
    fn parse(svg: &str) -> (Points, Vec<(String, String)>) {
        let colors: Vec<String> = COLORS[..2]
            .iter()
            .map(|c| format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2))
            .collect();
        let mut markers = Vec::new();
        let mut texts = Vec::new();
        let lines: Vec<&str> = svg.lines().collect();
        for (i, tag) in lines.iter().enumerate() {
            let colored = colors.iter().any(|c| tag.contains(c.as_str()));
            if tag.starts_with("<circle") && colored {
                markers.push((attr(tag, "cx"), attr(tag, "cy")));
            } else if tag.starts_with("<line") && colored {
                markers.push((attr(tag, "x1"), attr(tag, "y1")));
                markers.push((attr(tag, "x2"), attr(tag, "y2")));
            } else if tag.starts_with("<polygon") && colored {
                let points = tag.split("points=\"").nth(1).unwrap();
                for p in points.split_whitespace().filter(|p| p.contains(',')) {
                    let (x, y) = p.trim_end_matches('"').split_once(',').unwrap();
                    markers.push((x.parse().unwrap(), y.parse().unwrap()));
                }
            } else if tag.starts_with("<text") {
                texts.push((lines[i + 1].trim().to_string(), tag.to_string()));
            }
        }
        (markers, texts)
    }

    #[test]
    fn names_and_legend_stay_off_the_markers_and_each_outcome_has_its_shape() {
        let config = Config {
            strategies: vec![lookup("pos").unwrap(), lookup("random").unwrap()],
            c: super::super::sweep::Range { lo: 0, hi: 0 },
            v: super::super::sweep::Range { lo: 1, hi: 1 },
            t: super::super::sweep::Range { lo: 2, hi: 2 },
            seeds: 1,
            budget: 300,
            jobs: 1,
            all_bounds: false,
            out: PathBuf::new(),
            shard: None,
        };
        let programs = [
            program("Account", false),
            program("AVeryLongProgramNameIndeed", false),
            program("AccountFixed", true),
        ];
        let rows = [
            row("Account", "pos", 12, true, false),
            row("Account", "random", 300, false, false),
            row("AVeryLongProgramNameIndeed", "pos", 40, true, false),
            row("AVeryLongProgramNameIndeed", "random", 0, false, true),
        ];
        let dir = std::env::temp_dir().join(format!("rankcheck-plots-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("schedules-to-bug.svg");
        schedules_to_bug(&config, &programs, &rows, &path).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        let (markers, texts) = parse(&svg);
        // pos: two dots; random: a triangle (3 points) and a cross (two lines, 4 points).
        assert_eq!(svg.matches("<circle").count(), 2 + 1, "{svg}");
        assert_eq!(markers.len(), 2 + 3 + 4, "{markers:?}");
        let lowest = markers.iter().map(|m| m.1).fold(f64::MIN, f64::max);
        let rightmost = markers.iter().map(|m| m.0).fold(f64::MIN, f64::max);
        for name in ["Account", "AVeryLongProgramNameIndeed"] {
            let (_, tag) = texts.iter().find(|(t, _)| t == name).unwrap();
            // Written downwards from below every marker.
            assert!(
                tag.contains("text-anchor=\"start\"") && tag.contains("rotate(90"),
                "{tag}"
            );
            assert!(
                attr(tag, "y") > lowest,
                "{name} at {tag}, markers down to {lowest}"
            );
        }
        assert!(
            !texts.iter().any(|(t, _)| t == "AccountFixed"),
            "a correct program has no column"
        );
        for entry in [
            "pos",
            "random",
            "found (executions to it)",
            "not found (executions run)",
            "search error (no verdict)",
        ] {
            let (_, tag) = texts.iter().find(|(t, _)| t == entry).unwrap();
            assert!(
                attr(tag, "x") > rightmost,
                "legend {entry} at {tag} over the data"
            );
        }
        let path = dir.join("bugs-vs-executions.svg");
        bugs_vs_executions(&config, &programs, &rows, &path).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.contains("pos: 2 found, 0 not found, 0 errors"), "{svg}");
        assert!(
            svg.contains("random: 0 found, 1 not found, 1 error"),
            "{svg}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
