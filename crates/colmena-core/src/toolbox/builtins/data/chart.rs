//! `data_chart`: a bar, line or scatter chart of a file's rows (or of a
//! SELECT over them), drawn as an SVG file in the workspace.
//!
//! Why SVG written by hand: it is text, small, sharp at any size, opens in
//! every browser, and needs no font or rendering library; the chart is a
//! few rectangles, lines and labels.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use serde_json::Value;

use super::load::{Database, quoted};
use super::{Limits, sql, text};
use crate::error::{AppError, Result};
use crate::toolbox::builtins::files;

const WIDTH: f64 = 800.0;
const HEIGHT: f64 = 480.0;
const MAX_BARS: usize = 100;
const MAX_POINTS: usize = 5000;
const MAX_LABEL_CHARS: usize = 18;
const COLOURS: [&str; 6] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
];

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Bar,
    Line,
    Scatter,
}

fn invalid(field: &str, message: impl Into<String>) -> AppError {
    AppError::invalid_field(field, "invalid_chart", message)
}

pub(super) fn chart(
    root: &Path,
    args: &Value,
    limits: &Limits,
    stop: &Arc<AtomicBool>,
) -> Result<String> {
    let kind = match text(args, "kind") {
        "bar" => Kind::Bar,
        "line" => Kind::Line,
        "scatter" => Kind::Scatter,
        other => {
            return Err(invalid(
                "kind",
                format!("'{other}' is not bar, line or scatter"),
            ));
        }
    };
    let x_name = text(args, "x").trim().to_owned();
    let y_names: Vec<String> = match &args["y"] {
        Value::String(one) => vec![one.trim().to_owned()],
        Value::Array(list) => list
            .iter()
            .filter_map(Value::as_str)
            .map(|s| s.trim().to_owned())
            .collect(),
        _ => Vec::new(),
    };
    if x_name.is_empty() || y_names.is_empty() || y_names.len() > COLOURS.len() {
        return Err(invalid(
            "y",
            format!("name the x column and 1 to {} y columns", COLOURS.len()),
        ));
    }
    let file = text(args, "file").trim().to_owned();
    let db = Database::open(root, std::slice::from_ref(&file), limits, stop)?;
    let table = &db.tables[0];
    let query = match text(args, "sql").trim() {
        "" => format!("SELECT * FROM {}", quoted(&table.table)),
        given => given.to_owned(),
    };
    let most = if kind == Kind::Bar {
        MAX_BARS
    } else {
        MAX_POINTS
    };
    let unbounded = Limits {
        max_output_chars: usize::MAX,
        ..*limits
    };
    let summary = || db.summary();
    let rows = sql::select(&db.conn, &query, most as u64, &unbounded, stop, &summary)?;
    if rows.more {
        return Err(invalid(
            "sql",
            format!(
                "the rows are more than a {} chart draws ({most}): aggregate them (GROUP BY) or add LIMIT",
                kind_name(kind)
            ),
        ));
    }
    if rows.rows.is_empty() {
        return Err(invalid("sql", "there are no rows to draw"));
    }
    let find = |name: &str| {
        rows.columns
            .iter()
            .position(|c| c.eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                invalid(
                    "x",
                    format!(
                        "there is no column '{name}'; the rows have {}",
                        rows.columns.join(", ")
                    ),
                )
            })
    };
    let x_at = find(&x_name)?;
    let y_at = y_names
        .iter()
        .map(|y| find(y))
        .collect::<Result<Vec<_>>>()?;
    let mut series: Vec<Vec<Option<f64>>> = vec![Vec::new(); y_at.len()];
    for row in &rows.rows {
        for (s, at) in y_at.iter().enumerate() {
            let value = match &row[*at] {
                Value::Null => None,
                v => Some(number(v).ok_or_else(|| {
                    invalid(
                        "y",
                        format!("column '{}' is not numeric ({v})", rows.columns[*at]),
                    )
                })?),
            };
            series[s].push(value);
        }
    }
    let xs: Vec<&Value> = rows.rows.iter().map(|r| &r[x_at]).collect();
    let numeric_x: Option<Vec<f64>> = xs.iter().map(|v| number(v)).collect();
    if kind == Kind::Scatter && numeric_x.is_none() {
        return Err(invalid(
            "x",
            format!("a scatter chart needs a numeric x; '{x_name}' is not"),
        ));
    }
    let title = text(args, "title").trim().to_owned();
    let chart = Chart {
        kind,
        title: title.clone(),
        x_name: rows.columns[x_at].clone(),
        y_names: y_at.iter().map(|i| rows.columns[*i].clone()).collect(),
        labels: xs.iter().map(|v| label(v)).collect(),
        numeric_x: if kind == Kind::Bar { None } else { numeric_x },
        series,
    };
    let svg = chart.render();
    let output = output_path(text(args, "output"), &title, &table.table)?;
    files::write_bytes(root, &output, svg.as_bytes())?;
    Ok(format!(
        "Wrote a {} chart of {} {} (series: {}) to {output} in your workspace ({} bytes of SVG).",
        kind_name(kind),
        rows.rows.len(),
        if kind == Kind::Bar { "bars" } else { "points" },
        chart.y_names.join(", "),
        svg.len()
    ))
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Bar => "bar",
        Kind::Line => "line",
        Kind::Scatter => "scatter",
    }
}

fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok().filter(|f| f.is_finite()),
        _ => None,
    }
}

fn label(value: &Value) -> String {
    match value {
        Value::Null => "(empty)".to_owned(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Where the SVG goes: the given path (an `.svg`), else `charts/<slug>.svg`.
fn output_path(given: &str, title: &str, table: &str) -> Result<String> {
    let given = given.trim();
    if !given.is_empty() {
        let lower = given.to_ascii_lowercase();
        return match lower.rsplit_once('.') {
            Some((_, "svg")) => Ok(given.to_owned()),
            Some((stem, ext)) if !ext.contains('/') && !stem.is_empty() => Err(invalid(
                "output",
                format!("the chart is an SVG file: name it .svg, not .{ext}"),
            )),
            _ => Ok(format!("{given}.svg")),
        };
    }
    let slug = crate::ids::slugify(if title.is_empty() { table } else { title })
        .unwrap_or_else(|| "chart".to_owned());
    Ok(format!("charts/{slug}.svg"))
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn short(text: &str) -> String {
    if text.chars().count() > MAX_LABEL_CHARS {
        let mut cut: String = text.chars().take(MAX_LABEL_CHARS - 1).collect();
        cut.push('…');
        cut
    } else {
        text.to_owned()
    }
}

/// A "nice" step (1, 2 or 5 times a power of ten) near `rough`.
fn nice_step(rough: f64) -> f64 {
    if rough <= 0.0 || !rough.is_finite() {
        return 1.0;
    }
    let power = 10f64.powf(rough.log10().floor());
    let fraction = rough / power;
    let nice = if fraction <= 1.0 {
        1.0
    } else if fraction <= 2.0 {
        2.0
    } else if fraction <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * power
}

/// The axis range widened to nice ticks, and the ticks.
fn ticks(min: f64, max: f64) -> (f64, f64, Vec<f64>) {
    let (min, max) = if (max - min).abs() < f64::EPSILON {
        (min - 1.0, max + 1.0)
    } else {
        (min, max)
    };
    let step = nice_step((max - min) / 5.0);
    let (low, high) = ((min / step).floor() * step, (max / step).ceil() * step);
    let count = ((high - low) / step).round() as usize;
    let marks = (0..=count.min(20)).map(|i| low + step * i as f64).collect();
    (low, high, marks)
}

fn number_text(value: f64) -> String {
    if (value - value.round()).abs() < 1e-9 && value.abs() < 1e15 {
        format!("{}", value.round() as i64)
    } else {
        let text = format!("{value:.3}");
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

struct Chart {
    kind: Kind,
    title: String,
    x_name: String,
    y_names: Vec<String>,
    labels: Vec<String>,
    numeric_x: Option<Vec<f64>>,
    series: Vec<Vec<Option<f64>>>,
}

impl Chart {
    fn render(&self) -> String {
        let top = if self.title.is_empty() { 24.0 } else { 52.0 };
        let right = if self.series.len() > 1 { 160.0 } else { 24.0 };
        let (left, bottom) = (76.0, 84.0);
        let (pw, ph) = (WIDTH - left - right, HEIGHT - top - bottom);
        let values = self.series.iter().flatten().flatten().copied();
        let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
        let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (0.0, 1.0) };
        let (lo, hi) = if self.kind == Kind::Bar {
            (lo.min(0.0), hi.max(0.0))
        } else {
            (lo, hi)
        };
        let (y_low, y_high, y_ticks) = ticks(lo, hi);
        let y_at = |v: f64| top + ph - (v - y_low) / (y_high - y_low) * ph;

        let mut svg = String::new();
        let _ = write!(
            svg,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" \
             viewBox=\"0 0 {WIDTH} {HEIGHT}\" font-family=\"sans-serif\" font-size=\"11\">\n\
             <rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
        );
        if !self.title.is_empty() {
            let _ = writeln!(
                svg,
                "<text x=\"{}\" y=\"30\" text-anchor=\"middle\" font-size=\"16\" font-weight=\"bold\">{}</text>",
                WIDTH / 2.0,
                escape(&self.title)
            );
        }
        for tick in &y_ticks {
            let y = y_at(*tick);
            let _ = writeln!(
                svg,
                "<line x1=\"{left}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#e5e5e5\"/>\
                 <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
                left + pw,
                left - 6.0,
                y + 4.0,
                number_text(*tick)
            );
        }
        let n = self.labels.len().max(1);
        // Where each row sits on the x axis, and the labels to show.
        let (positions, x_marks): (Vec<f64>, Vec<(f64, String)>) =
            match (&self.numeric_x, self.kind) {
                (Some(xs), Kind::Line | Kind::Scatter) => {
                    let (a, b) = xs
                        .iter()
                        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                            (a.min(*v), b.max(*v))
                        });
                    let (x_low, x_high, marks) = ticks(a, b);
                    let at = |v: f64| left + (v - x_low) / (x_high - x_low) * pw;
                    (
                        xs.iter().map(|v| at(*v)).collect(),
                        marks.iter().map(|m| (at(*m), number_text(*m))).collect(),
                    )
                }
                _ => {
                    let band = pw / n as f64;
                    let every = n.div_ceil(24).max(1);
                    let positions: Vec<f64> =
                        (0..n).map(|i| left + band * (i as f64 + 0.5)).collect();
                    let marks = positions
                        .iter()
                        .zip(&self.labels)
                        .enumerate()
                        .filter(|(i, _)| i % every == 0)
                        .map(|(_, (p, l))| (*p, short(l)))
                        .collect();
                    (positions, marks)
                }
            };
        for (x, text) in &x_marks {
            let y = top + ph + 14.0;
            let _ = writeln!(
                svg,
                "<text x=\"{x:.1}\" y=\"{y:.1}\" text-anchor=\"end\" transform=\"rotate(-35 {x:.1} {y:.1})\">{}</text>",
                escape(text)
            );
        }
        let zero = y_at(0f64.clamp(y_low, y_high));
        match self.kind {
            Kind::Bar => {
                let band = pw / n as f64;
                let bar = band * 0.8 / self.series.len() as f64;
                for (s, values) in self.series.iter().enumerate() {
                    for (i, value) in values.iter().enumerate() {
                        let Some(v) = value else { continue };
                        let x = left + band * i as f64 + band * 0.1 + bar * s as f64;
                        let (y1, y2) = (y_at(*v).min(zero), y_at(*v).max(zero));
                        let _ = writeln!(
                            svg,
                            "<rect x=\"{x:.1}\" y=\"{y1:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\"><title>{}: {}</title></rect>",
                            bar.max(1.0),
                            (y2 - y1).max(0.5),
                            COLOURS[s],
                            escape(&self.labels[i]),
                            number_text(*v)
                        );
                    }
                }
            }
            Kind::Line | Kind::Scatter => {
                for (s, values) in self.series.iter().enumerate() {
                    let points: Vec<(f64, f64)> = positions
                        .iter()
                        .zip(values)
                        .filter_map(|(x, v)| v.map(|v| (*x, y_at(v))))
                        .collect();
                    if self.kind == Kind::Line {
                        let path: Vec<String> = points
                            .iter()
                            .map(|(x, y)| format!("{x:.1},{y:.1}"))
                            .collect();
                        let _ = writeln!(
                            svg,
                            "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/>",
                            COLOURS[s],
                            path.join(" ")
                        );
                    }
                    if self.kind == Kind::Scatter || points.len() <= 60 {
                        for (x, y) in &points {
                            let _ = writeln!(
                                svg,
                                "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"3\" fill=\"{}\"/>",
                                COLOURS[s]
                            );
                        }
                    }
                }
            }
        }
        let _ = writeln!(
            svg,
            "<line x1=\"{left}\" x2=\"{left}\" y1=\"{top}\" y2=\"{:.1}\" stroke=\"#333\"/>\
             <line x1=\"{left}\" x2=\"{:.1}\" y1=\"{zero:.1}\" y2=\"{zero:.1}\" stroke=\"#333\"/>",
            top + ph,
            left + pw
        );
        let _ = writeln!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"12\">{}</text>",
            left + pw / 2.0,
            HEIGHT - 8.0,
            escape(&self.x_name)
        );
        if self.series.len() == 1 {
            let (x, y) = (16.0, top + ph / 2.0);
            let _ = writeln!(
                svg,
                "<text x=\"{x}\" y=\"{y:.1}\" text-anchor=\"middle\" font-size=\"12\" transform=\"rotate(-90 {x} {y:.1})\">{}</text>",
                escape(&self.y_names[0])
            );
        } else {
            for (s, name) in self.y_names.iter().enumerate() {
                let y = top + 8.0 + 20.0 * s as f64;
                let x = WIDTH - right + 16.0;
                let _ = writeln!(
                    svg,
                    "<rect x=\"{x}\" y=\"{:.1}\" width=\"12\" height=\"12\" fill=\"{}\"/>\
                     <text x=\"{}\" y=\"{:.1}\">{}</text>",
                    y - 10.0,
                    COLOURS[s],
                    x + 18.0,
                    y,
                    escape(&short(name))
                );
            }
        }
        svg.push_str("</svg>\n");
        svg
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_numbers_covering_the_range() {
        let (low, high, marks) = ticks(0.0, 93.0);
        assert_eq!((low, high), (0.0, 100.0));
        assert_eq!(marks, [0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
        let (low, high, _) = ticks(5.0, 5.0);
        assert!(low < 5.0 && high > 5.0);
        assert_eq!(number_text(2.5), "2.5");
        assert_eq!(number_text(40.0), "40");
    }

    #[test]
    fn outputs_are_svg_files() {
        assert_eq!(
            output_path("", "Ventas por región", "sales").unwrap(),
            "charts/ventas_por_region.svg"
        );
        assert_eq!(output_path("", "", "sales").unwrap(), "charts/sales.svg");
        assert_eq!(output_path("out/plot", "", "t").unwrap(), "out/plot.svg");
        assert!(output_path("plot.png", "", "t").is_err());
    }

    #[test]
    fn labels_and_titles_are_escaped() {
        let chart = Chart {
            kind: Kind::Bar,
            title: "<b>&".into(),
            x_name: "x".into(),
            y_names: vec!["y".into()],
            labels: vec!["a<script>".into()],
            numeric_x: None,
            series: vec![vec![Some(1.0)]],
        };
        let svg = chart.render();
        assert!(svg.contains("&lt;b&gt;&amp;"));
        assert!(!svg.contains("<script>"));
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    }
}
