//! A small SVG chart: throughput (GB/s) against size, one line per primitive, the copy
//! kernel's line and the peer's lines dashed.

use crate::primitives::PrimitiveResult;

const W: f64 = 760.0;
const H: f64 = 440.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 190.0;
const TOP: f64 = 30.0;
const BOTTOM: f64 = 50.0;
const COLORS: &[&str] = &[
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
];

fn bytes(r: &PrimitiveResult) -> f64 {
    match r.primitive.as_str() {
        "reduce" => 4.0 * r.n as f64,
        // The peer does not say how many it kept; count half, as the benchmark's inputs do.
        "select" => 6.0 * r.n as f64,
        _ => 8.0 * r.n as f64,
    }
}

/// A named line: points (log2 n, GB/s), dashed or not.
struct Series {
    name: String,
    points: Vec<(f64, f64)>,
    dashed: bool,
}

/// Render the chart.
pub fn throughput_svg(ours: &[PrimitiveResult], peer: Option<&[PrimitiveResult]>) -> String {
    let mut series: Vec<Series> = Vec::new();
    let mut names: Vec<&str> = ours.iter().map(|r| r.primitive.as_str()).collect();
    names.dedup();
    names.sort_unstable();
    names.dedup();
    for name in &names {
        let pts = ours
            .iter()
            .filter(|r| r.primitive == *name)
            .map(|r| ((r.n as f64).log2(), r.gbps))
            .collect();
        series.push(Series {
            name: format!("wavekit {name}"),
            points: pts,
            dashed: false,
        });
        if let Some(p) = peer {
            let pts: Vec<_> = p
                .iter()
                .filter(|r| r.primitive == *name)
                .map(|r| ((r.n as f64).log2(), bytes(r) / r.median_ns))
                .collect();
            if !pts.is_empty() {
                series.push(Series {
                    name: format!("peer {name}"),
                    points: pts,
                    dashed: true,
                });
            }
        }
    }
    let mut copy: Vec<(f64, f64)> = ours
        .iter()
        .map(|r| ((r.n as f64).log2(), r.copy_gbps))
        .collect();
    copy.sort_by(|a, b| a.0.total_cmp(&b.0));
    copy.dedup_by(|a, b| a.0 == b.0);
    series.push(Series {
        name: "copy kernel".into(),
        points: copy,
        dashed: false,
    });

    let all = series.iter().flat_map(|s| s.points.iter());
    let (mut x0, mut x1, mut y1) = (f64::MAX, f64::MIN, 0.0f64);
    for &(x, y) in all {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y1 = y1.max(y);
    }
    if x0 >= x1 {
        x0 -= 1.0;
        x1 += 1.0;
    }
    let y1 = (y1 * 1.1).max(1.0);
    let px = |x: f64| LEFT + (x - x0) / (x1 - x0) * (W - LEFT - RIGHT);
    let py = |y: f64| H - BOTTOM - y / y1 * (H - TOP - BOTTOM);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{}\" y=\"18\" text-anchor=\"middle\" font-size=\"14\">throughput (GB/s read + write) against size</text>\n",
        (LEFT + W - RIGHT) / 2.0
    );
    // Axes and ticks.
    s += &format!(
        "<line x1=\"{LEFT}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n<line x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{}\" stroke=\"black\"/>\n",
        H - BOTTOM,
        W - RIGHT,
        H - BOTTOM,
        H - BOTTOM
    );
    let mut x = x0.ceil();
    while x <= x1 {
        s += &format!(
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">2^{x}</text>\n",
            px(x),
            H - BOTTOM + 18.0
        );
        x += 2.0;
    }
    for i in 0..=5 {
        let y = y1 * f64::from(i) / 5.0;
        s += &format!(
            "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{:.0}</text>\n<line x1=\"{LEFT}\" y1=\"{:.1}\" x2=\"{}\" y2=\"{:.1}\" stroke=\"#ddd\"/>\n",
            LEFT - 6.0,
            py(y) + 4.0,
            y,
            py(y),
            W - RIGHT,
            py(y)
        );
    }
    s += &format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">elements (u32)</text>\n",
        (LEFT + W - RIGHT) / 2.0,
        H - 12.0
    );
    for (
        i,
        Series {
            name,
            points: pts,
            dashed,
        },
    ) in series.iter().enumerate()
    {
        let color = if name == "copy kernel" {
            "black"
        } else {
            COLORS[(i / if peer.is_some() { 2 } else { 1 }) % COLORS.len()]
        };
        let dash = if *dashed {
            " stroke-dasharray=\"6 4\""
        } else {
            ""
        };
        let path: Vec<String> = pts
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
            .collect();
        s += &format!(
            "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"2\"{dash} points=\"{}\"/>\n",
            path.join(" ")
        );
        let ly = TOP + 16.0 * i as f64;
        s += &format!(
            "<line x1=\"{}\" y1=\"{ly}\" x2=\"{}\" y2=\"{ly}\" stroke=\"{color}\" stroke-width=\"2\"{dash}/>\n<text x=\"{}\" y=\"{}\">{name}</text>\n",
            W - RIGHT + 10.0,
            W - RIGHT + 34.0,
            W - RIGHT + 40.0,
            ly + 4.0
        );
    }
    s += "</svg>\n";
    s
}
