//! The tensor-core product (`ProductKernel::Tensor`, `shaders/products/matmul_tensor.wgsl`)
//! natively: where the native adapter has cooperative matrices of float16 into float32 (an
//! NVIDIA GPU on Vulkan; run there with `cargo test --release --features native --test
//! tensor`), its products of float16 matrices against float64; on any other adapter (CI runs
//! it on SwiftShader's Vulkan), its clear error. Browsers never have it (`tests/float16.rs` checks the error there).
//!
//! Tolerance: the float32 bound of the float64 product of the float16 values, as for every
//! product of float16 matrices (|gpu - exact| <= 2 (k + 2) 2^-24 sum_p |a_ip b_pj|,
//! `reference::dot_error_bound`): products of float16 values are exact in float32, and the
//! tensor cores sum them in float32.
#![cfg(feature = "native")]

use texla::backend::{Format, WebGpu};
use texla::error::Error;
use texla::gpu::{block_on, float16, Gpu, ProductKernel};
use texla::reference::{compare, dot_error_bound, matmul, Rng};

/// Values rounded to float16, in [-1, 1) with some large ones (float16's range, sums of mixed
/// signs) and exact zeros.
fn halves(len: usize, seed: u32) -> Vec<f32> {
    let mut rng = Rng::new(seed);
    let values: Vec<f32> = rng
        .matrix(len, -1.0, 1.0)
        .into_iter()
        .enumerate()
        .map(|(i, v)| match i % 11 {
            0 => v * 500.0,
            5 => 0.0,
            _ => v,
        })
        .collect();
    float16(&values).expect("within float16's range")
}

#[test]
fn tensor_products_of_float16_matrices_within_the_float32_bound() {
    let backend = block_on(WebGpu::create_with(wgpu::MemoryHints::default())).expect(
        "a native adapter (without a GPU, SwiftShader's: LD_LIBRARY_PATH=/usr/lib/chromium \
         VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json, as tools/test.sh runs it)",
    );
    let gpu = Gpu::new(backend, None);
    print_configurations();
    let a = gpu.upload_as(&[1.0; 12], (3, 4), Format::F16).unwrap();
    let b = gpu.upload_as(&[1.0; 8], (4, 2), Format::F16).unwrap();
    if !gpu.capabilities().tensor {
        let err = gpu.mul_with(ProductKernel::Tensor, &a, &b).unwrap_err();
        assert!(
            matches!(&err, Error::Unsupported(m) if m.contains("cooperative matrices")),
            "{err}"
        );
        eprintln!(
            "{}: no cooperative matrices, the clear error checked",
            gpu.capabilities().adapter
        );
        return;
    }
    let a32 = gpu.upload_as(&[1.0; 12], (3, 4), Format::F32).unwrap();
    let err = gpu.mul_with(ProductKernel::Tensor, &a32, &b).unwrap_err();
    assert!(
        matches!(&err, Error::Unsupported(m) if m.contains("float32 and float16")),
        "{err}"
    );
    // Shapes on and off the 128 x 128 blocks, the 32-deep chunks and the texels' 4 rows; k = 1;
    // and a product past one texture (tiled).
    let limit = gpu.capabilities().max_texture_size as usize;
    let shapes = [
        (1, 1, 1),
        (3, 4, 2),
        (16, 16, 16),
        (17, 33, 15),
        (128, 32, 128),
        (129, 31, 130),
        (200, 1, 77),
        (257, 300, 129),
        (1024, 1024, 1024),
        (513, 2049, 385),
        (4 * limit + 5, 20, 3),
    ];
    for (i, &(m, k, n)) in shapes.iter().enumerate() {
        let a = halves(m * k, 2 * i as u32 + 1);
        let b = halves(k * n, 2 * i as u32 + 2);
        let ga = gpu.upload_as(&a, (m, k), Format::F16).unwrap();
        let gb = gpu.upload_as(&b, (k, n), Format::F16).unwrap();
        for kernel in [ProductKernel::Tensor, ProductKernel::Auto] {
            let c = gpu.mul_with(kernel, &ga, &gb).unwrap();
            let got = block_on(gpu.read(&c)).unwrap();
            let (exact, sums) = matmul(&a, &b, m, k, n);
            let bound: Vec<f64> = sums.iter().map(|&s| dot_error_bound(k, s)).collect();
            let cmp = compare(&got, &exact, &bound);
            assert!(
                cmp.worst_bound_ratio <= 1.0,
                "{kernel:?} {m}x{k}x{n}: {cmp:?}"
            );
            eprintln!(
                "{kernel:?} {m}x{k}x{n}: {:.3} of the bound",
                cmp.worst_bound_ratio
            );
        }
    }
}

/// The cooperative matrix configurations the native adapter reports (those wgpu maps: sizes 8
/// and 16, float16, float32 and 32-bit integers), for the record.
fn print_configurations() {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends: wgpu::Backends::from_env().unwrap_or(wgpu::Backends::VULKAN),
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    });
    let options = wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        ..Default::default()
    };
    if let Ok(adapter) = block_on(instance.request_adapter(&options)) {
        for p in adapter.cooperative_matrix_properties() {
            eprintln!(
                "cooperative matrix: {}x{}x{}, {:?} x {:?} -> {:?}",
                p.m_size, p.n_size, p.k_size, p.ab_type, p.ab_type, p.cr_type
            );
        }
    }
}
