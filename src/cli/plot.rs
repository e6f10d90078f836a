//! `--plot FILE.svg`: pictures of a run and of a bench table, drawn with `plotters`' SVG backend and
//! written atomically. A run's chart shows, per iteration, the frontier and the edges inspected on a
//! log axis (each point's shape gives the direction, its colour the filter) above the time each
//! iteration took; a bench chart is a grouped bar chart of median times on a log axis, one group per
//! algorithm and graph, one bar per backend and policy.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use simdx_core::engine::{Direction, FilterUsed, IterationStats};
use simdx_core::io::atomic_file::write_atomically;

use super::error::CliError;

/// The chart's size in pixels.
const SIZE: (u32, u32) = (960, 640);

/// Colours of the filters, of the bars' series, and of the time line.
const ONLINE: RGBColor = RGBColor(31, 119, 180);
const BALLOT: RGBColor = RGBColor(255, 127, 14);
const EVERY: RGBColor = RGBColor(127, 127, 127);
const QUEUE: RGBColor = RGBColor(44, 160, 44);
const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

/// A failed drawing as a CLI error.
fn drawing<E: std::error::Error + Send + Sync>(e: DrawingAreaErrorKind<E>) -> CliError {
    CliError::Output(std::io::Error::other(format!("drawing the plot: {e}")))
}

/// Renders `draw` on an SVG canvas and writes it to `path` atomically.
fn write_svg(
    path: &Path,
    draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, Shift>) -> Result<(), CliError>,
) -> Result<(), CliError> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(drawing)?;
        draw(&root)?;
        root.present().map_err(drawing)?;
    }
    write_atomically(path, |f| std::io::Write::write_all(f, svg.as_bytes()))
        .map_err(|e| simdx_core::GraphError::io(path, e))?;
    Ok(())
}

/// The colour of a filter.
fn filter_colour(filter: FilterUsed) -> RGBColor {
    match filter {
        FilterUsed::Online => ONLINE,
        FilterUsed::Ballot => BALLOT,
        FilterUsed::Every => EVERY,
        FilterUsed::Queue => QUEUE,
    }
}

/// Draws a run's iterations to `path`: frontier and edges per iteration (log axis; circles push,
/// triangles pull; colour = filter) above the time per iteration.
pub fn run_chart(path: &Path, title: &str, iterations: &[IterationStats]) -> Result<(), CliError> {
    write_svg(path, |root| {
        let (top, bottom) = root.split_vertically(SIZE.1 * 3 / 5);
        let count = iterations.len().max(1) as u32;
        let largest = iterations.iter().map(|it| it.frontier.max(it.edges)).max().unwrap_or(1).max(1) as f64;
        let mut chart = ChartBuilder::on(&top)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(30)
            .y_label_area_size(70)
            .build_cartesian_2d(0u32..count, (0.8f64..largest * 2.0).log_scale())
            .map_err(drawing)?;
        chart.configure_mesh().x_desc("iteration").y_desc("vertices / edges").draw().map_err(drawing)?;
        let positive = |x: u64| (x as f64).max(1.0);
        for (series, pick, label) in [
            (0, (|it: &IterationStats| it.frontier) as fn(&IterationStats) -> u64, "frontier (vertices)"),
            (1, |it: &IterationStats| it.edges, "edges inspected"),
        ] {
            let line = ShapeStyle::from(&PALETTE[2 + series]).stroke_width(1);
            chart
                .draw_series(LineSeries::new(
                    iterations.iter().enumerate().map(|(i, it)| (i as u32, positive(pick(it)))),
                    line,
                ))
                .map_err(drawing)?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], line));
            chart
                .draw_series(iterations.iter().enumerate().map(|(i, it)| {
                    let at = (i as u32, positive(pick(it)));
                    let style = ShapeStyle::from(&filter_colour(it.filter)).filled();
                    match it.direction {
                        Direction::Push => Circle::new(at, 4, style).into_dyn(),
                        Direction::Pull => TriangleMarker::new(at, 6, style).into_dyn(),
                    }
                }))
                .map_err(drawing)?;
        }
        // The legend of the markers: shape = direction, colour = filter.
        for (label, style, pull) in [
            ("push, online filter", ONLINE, false),
            ("pull", ONLINE, true),
            ("ballot filter", BALLOT, false),
            ("every vertex applied", EVERY, false),
            ("asynchronous (work queue)", QUEUE, false),
        ] {
            let fill = ShapeStyle::from(&style).filled();
            chart.draw_series(std::iter::empty::<Circle<(u32, f64), i32>>()).map_err(drawing)?.label(label).legend(
                move |(x, y)| match pull {
                    true => TriangleMarker::new((x + 10, y), 6, fill).into_dyn(),
                    false => Circle::new((x + 10, y), 4, fill).into_dyn(),
                },
            );
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(drawing)?;

        let slowest = iterations.iter().map(|it| it.time.as_secs_f64() * 1e3).fold(0.0, f64::max).max(1e-3);
        let mut times = ChartBuilder::on(&bottom)
            .margin(12)
            .x_label_area_size(30)
            .y_label_area_size(70)
            .build_cartesian_2d(0u32..count, 0f64..slowest * 1.1)
            .map_err(drawing)?;
        times.configure_mesh().x_desc("iteration").y_desc("ms").draw().map_err(drawing)?;
        times
            .draw_series(LineSeries::new(
                iterations.iter().enumerate().map(|(i, it)| (i as u32, it.time.as_secs_f64() * 1e3)),
                ShapeStyle::from(&BLACK).stroke_width(1),
            ))
            .map_err(drawing)?
            .label("time per iteration")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK));
        times.configure_series_labels().border_style(BLACK).draw().map_err(drawing)?;
        Ok(())
    })
}

/// One bar of a bench chart: its group (algorithm and graph), its series (backend and policy) and
/// its median time.
pub struct Bar {
    /// The group the bar belongs to, e.g. `bfs kron:16:w`.
    pub group: String,
    /// The series, e.g. `cuda auto/jit/auto`.
    pub series: String,
    /// The median time in milliseconds.
    pub ms: f64,
}

/// Draws a grouped bar chart of `bars` (log time axis) to `path`.
pub fn bench_chart(path: &Path, title: &str, bars: &[Bar]) -> Result<(), CliError> {
    let mut groups: Vec<&str> = Vec::new();
    let mut series: Vec<&str> = Vec::new();
    for b in bars {
        if !groups.contains(&b.group.as_str()) {
            groups.push(&b.group);
        }
        if !series.contains(&b.series.as_str()) {
            series.push(&b.series);
        }
    }
    write_svg(path, |root| {
        let low = bars.iter().map(|b| b.ms).fold(f64::INFINITY, f64::min).max(1e-4) / 2.0;
        let high = bars.iter().map(|b| b.ms).fold(0.0, f64::max).max(low * 4.0) * 2.0;
        let width = series.len().max(1) as f64 + 1.0;
        let mut chart = ChartBuilder::on(root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(0f64..groups.len().max(1) as f64 * width, (low..high).log_scale())
            .map_err(drawing)?;
        chart.configure_mesh().disable_x_mesh().disable_x_axis().y_desc("median ms (log)").draw().map_err(drawing)?;
        // Each group's name above its tallest bar.
        let centred = TextStyle::from(("sans-serif", 12).into_font()).pos(Pos::new(HPos::Center, VPos::Bottom));
        chart
            .draw_series(groups.iter().enumerate().map(|(g, name)| {
                let top = bars.iter().filter(|b| b.group == *name).map(|b| b.ms).fold(low, f64::max);
                Text::new(name.to_string(), (g as f64 * width + width / 2.0, top * 1.15), centred.clone())
            }))
            .map_err(drawing)?;
        for (k, name) in series.iter().enumerate() {
            let colour = PALETTE[k % PALETTE.len()];
            let rects = bars.iter().filter(|b| b.series == *name).map(|b| {
                let g = groups.iter().position(|x| *x == b.group).unwrap_or(0) as f64;
                let left = g * width + 0.5 + k as f64;
                Rectangle::new([(left, low), (left + 0.9, b.ms.max(low))], colour.filled())
            });
            chart
                .draw_series(rects)
                .map_err(drawing)?
                .label(*name)
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], colour.filled()));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(drawing)?;
        Ok(())
    })
}
