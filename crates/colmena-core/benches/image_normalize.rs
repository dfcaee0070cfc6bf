//! Normalising a 3024×4032 JPEG for a model (SPEC H37): decode, resize to
//! ≤ 1024 px, lossy WebP q80 — `images::normalize_bytes`, median of 5 after
//! one warm-up. `scripts/bench-images.sh` runs this and sharp (libvips) on
//! the same file, side by side.
//!
//! `cargo bench -p colmena-core --bench image_normalize`
//! (`COLMENA_BENCH_PHOTO=path.jpg` to use or keep a given photo).

#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

fn main() {
    let path = std::env::var("COLMENA_BENCH_PHOTO").ok();
    let photo = match path.as_deref().map(std::fs::read) {
        Some(Ok(bytes)) => bytes,
        _ => {
            let bytes = colmena_core::images::sample_photo_jpeg(3024, 4032, 85);
            if let Some(path) = &path {
                std::fs::write(path, &bytes).unwrap();
            }
            bytes
        }
    };
    let mut times: Vec<Duration> = Vec::new();
    let mut out = None;
    for run in 0..6 {
        let started = Instant::now();
        let done = colmena_core::images::normalize_bytes(&photo).unwrap();
        if run > 0 {
            times.push(started.elapsed());
        }
        out = Some(done);
    }
    times.sort();
    let out = out.unwrap();
    println!(
        "colmena  normalize 3024x4032 JPEG ({} KB) -> {}x{} WebP q80: median {:.0} ms (min {:.0}, max {:.0}), {:.1} KB",
        photo.len() / 1024,
        out.width,
        out.height,
        times[times.len() / 2].as_secs_f64() * 1e3,
        times[0].as_secs_f64() * 1e3,
        times[times.len() - 1].as_secs_f64() * 1e3,
        out.bytes.len() as f64 / 1024.0
    );
}
