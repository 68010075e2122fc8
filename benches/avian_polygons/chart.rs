//! The step times as an SVG chart.

use std::fmt::Write as _;

use crate::Side;
use crate::pile::PileRun;
use crate::report::{mean, p95};

/// Step time against N, both sides, as an SVG line chart.
pub fn chart(runs: &[PileRun]) -> String {
    let (width, height, left, bottom, top, right) = (640.0, 400.0, 70.0, 50.0, 40.0, 150.0);
    let most_n = runs.iter().map(|r| r.n).max().unwrap_or(1) as f64;
    let most_ms = runs
        .iter()
        .map(|r| p95(r.steps.iter().map(|s| s.total)))
        .fold(0.0, f64::max)
        .max(1.0);
    let x = |n: f64| left + n / most_n * (width - left - right);
    let y = |ms: f64| height - bottom - ms / most_ms * (height - top - bottom);
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="13">
<rect width="100%" height="100%" fill="white"/>
<text x="{left}" y="24" font-size="15">avian2d step time against bodies in the pile (mean, dashed: 95th percentile)</text>
<line x1="{left}" y1="{b}" x2="{r}" y2="{b}" stroke="black"/>
<line x1="{left}" y1="{b}" x2="{left}" y2="{top}" stroke="black"/>
<text x="{mx}" y="{lx}" text-anchor="middle">bodies</text>
<text x="16" y="{my}" transform="rotate(-90 16 {my})" text-anchor="middle">ms per step</text>
"#,
        b = height - bottom,
        r = width - right,
        mx = (left + width - right) / 2.0,
        lx = height - 12.0,
        my = (top + height - bottom) / 2.0,
    );
    for k in 0..=4 {
        let ms = most_ms * f64::from(k) / 4.0;
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="end">{ms:.1}</text><line x1="{left}" y1="{1}" x2="{}" y2="{1}" stroke="lightgray"/>"#,
            left - 6.0,
            y(ms),
            width - right
        );
    }
    let mut ns: Vec<usize> = runs.iter().map(|r| r.n).collect();
    ns.dedup();
    for n in ns {
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="middle">{n}</text>"#,
            x(n as f64),
            height - bottom + 18.0
        );
    }
    for (k, (side, color)) in [(Side::Masks, "#c0392b"), (Side::Polygons, "#2471a3")]
        .into_iter()
        .enumerate()
    {
        let ours: Vec<&PileRun> = runs.iter().filter(|r| r.side == side).collect();
        for (dash, figure) in [("", 0), ("6 4", 1)] {
            let points: Vec<String> = ours
                .iter()
                .map(|r| {
                    let ms = if figure == 0 {
                        mean(r.steps.iter().map(|s| s.total))
                    } else {
                        p95(r.steps.iter().map(|s| s.total))
                    };
                    format!("{:.1},{:.1}", x(r.n as f64), y(ms))
                })
                .collect();
            let _ = writeln!(
                svg,
                r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="2" stroke-dasharray="{dash}"/>"#,
                points.join(" ")
            );
        }
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{}" fill="{color}">{}</text>"#,
            width - right + 10.0,
            top + 20.0 + 20.0 * k as f64,
            side.name()
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// Writes the chart of `runs` to `path`.
pub fn write_chart(path: String, runs: &[PileRun]) {
    // cargo runs a bench in its package's folder: a relative path is the repository's.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path);
    std::fs::write(&path, chart(runs)).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    eprintln!("avian_polygons: chart written to {}", path.display());
}
