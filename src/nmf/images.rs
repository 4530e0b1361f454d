//! Parts-based images for the thesis's experiment, generated (no face set ships with texla and
//! none is fetched): each 19 x 19 image is a few localized parts (soft blobs and strokes at fixed
//! places, each present or not and of its own strength) plus noise, so that NMF's basis images
//! come out as parts.

use crate::reference::Rng;

/// Side of each image, pixels (the thesis's 19 x 19).
pub const IMAGE_SIDE: usize = 19;

/// The most images the JS API generates at once (94 MiB of float32).
pub const MAX_IMAGES: usize = 65_536;

/// `count` images from `seed`, as F: pixels x images (361 x count), row-major, values in
/// [0, 1].
pub fn parts_images(count: usize, seed: u32) -> Vec<f32> {
    // The parts: (centre x, centre y, radius x, radius y), in pixels: two eyes, two brows, a
    // nose, a mouth, two cheeks, a chin, a forehead, and two hair strands.
    const PARTS: [(f64, f64, f64, f64); 12] = [
        (5.5, 7.0, 2.0, 1.2),
        (12.5, 7.0, 2.0, 1.2),
        (5.5, 4.5, 2.5, 0.7),
        (12.5, 4.5, 2.5, 0.7),
        (9.0, 10.5, 1.0, 2.5),
        (9.0, 14.5, 3.5, 1.0),
        (3.5, 11.5, 1.5, 2.0),
        (14.5, 11.5, 1.5, 2.0),
        (9.0, 17.0, 2.5, 1.0),
        (9.0, 1.8, 5.0, 1.0),
        (1.5, 5.0, 1.0, 4.0),
        (16.5, 5.0, 1.0, 4.0),
    ];
    let pixels = IMAGE_SIDE * IMAGE_SIDE;
    let mut f = vec![0.0f32; pixels * count];
    let mut rng = Rng::new(seed);
    for image in 0..count {
        let strength: Vec<f64> = PARTS
            .iter()
            .map(|_| {
                let on = rng.next_f64() < 0.6;
                if on {
                    0.4 + 0.6 * rng.next_f64()
                } else {
                    0.0
                }
            })
            .collect();
        for p in 0..pixels {
            let (x, y) = ((p % IMAGE_SIDE) as f64, (p / IMAGE_SIDE) as f64);
            let mut value = 0.05 * rng.next_f64();
            for (&(cx, cy, rx, ry), s) in PARTS.iter().zip(&strength) {
                let d = ((x - cx) / rx).powi(2) + ((y - cy) / ry).powi(2);
                value += s * (-d).exp();
            }
            f[p * count + image] = value.min(1.0) as f32;
        }
    }
    f
}
