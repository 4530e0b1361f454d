//! Browser tests of moving matrices between the page and the GPU, on BOTH backends: uploads and
//! read-backs (small ones at once, several in one read-back, large ones into kept buffers), get
//! and set, the memory budget that moves matrices to the CPU, and a lost GPU brought back with
//! what it kept. Run with `cargo test --target wasm32-unknown-unknown --test transfers`.
//!
//! Tolerance: none. Every value comes back bit for bit (a copy).
#![cfg(target_arch = "wasm32")]

mod common;

use common::{device, message, settle};
use texla::backend::{BackendKind, WebGpu};
use texla::gpu::{Format, Gpu};
use texla::matrix::Matrix;
use texla::reference::Rng;
use texla::{Gpgpu, GpuMatrix};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Asserts `got == want` bit for bit, naming the first difference (not a million values).
fn assert_same(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(k) = (0..got.len()).find(|&k| got[k].to_bits() != want[k].to_bits()) {
        panic!("{what}: element {k} is {}, not {}", got[k], want[k]);
    }
}

/// A GpuMatrix read back, or the error's message.
async fn values(m: &GpuMatrix) -> Result<Vec<f32>, String> {
    settle(m.read())
        .await
        .map(|v| js_sys::Float32Array::from(v).to_vec())
}

on_both_backends! {
    async fn upload_then_read_is_exact(kind) {
        let gpu = device(kind).await;
        // The last two pass 1 MiB: on a hardware adapter WebGPU (un)packs those on the GPU, the
        // others on the CPU; on a software adapter (SwiftShader here) the CPU does all. Both
        // ways are taken here, whatever the adapter.
        let shapes = [(1, 1), (1, 7), (7, 1), (3, 5), (4, 4), (5, 3), (13, 29), (100, 3), (1023, 259), (258, 1021)];
        for on_gpu in [false, true] {
            if let Some(webgpu) = gpu.backend_as::<WebGpu>() {
                webgpu.set_gpu_transfers(on_gpu);
            }
            for (rows, cols) in shapes {
                let data = Rng::new(rows as u32 * 100 + cols as u32).matrix(rows * cols, -1e6, 1e6);
                let m = gpu.upload(&data, rows, cols).unwrap();
                assert_same(&gpu.read(&m).await.unwrap(), &data, &format!("{rows}x{cols}"));
                // The buffers kept from a large transfer go, and the next one makes new ones.
                gpu.release_pooled();
                assert_same(&gpu.read(&m).await.unwrap(), &data, &format!("{rows}x{cols} again"));
            }
        }
        // Through the JS API, where WebGPU hands the page the mapped values without wasm memory
        // and writes large arrays into kept mapped buffers: uploads in a row take a new one, a
        // second, then writeBuffer while both are mapped again; after the reads let the mappings
        // come back, a kept one, then a larger array replaces one.
        // readInto fills an array the page keeps (NaN before each read), small and large, and
        // the same array again in a later round. WebGPU (un)packs on the GPU here, as on a
        // hardware adapter.
        let js = Gpgpu::create(Some(kind.name().into()), JsValue::UNDEFINED).await.unwrap();
        if let Some(webgpu) = js.gpu().backend_as::<WebGpu>() {
            webgpu.set_gpu_transfers(true);
        }
        let mut kept = std::collections::HashMap::new();
        for round in [&[(5, 3), (1023, 259), (258, 1021), (600, 500)][..], &[(1023, 259)], &[(1100, 300)]] {
            let mut uploaded = vec![];
            for &(rows, cols) in round {
                let data = Rng::new(7 + rows as u32).matrix(rows * cols, -1e6, 1e6);
                let array: JsValue = js_sys::Float32Array::from(data.as_slice()).into();
                uploaded.push((js.upload(&array, rows as f64, cols as f64, JsValue::UNDEFINED).unwrap(), data, (rows, cols)));
            }
            for (m, data, (rows, cols)) in uploaded {
                let got: js_sys::Float32Array = wasm_bindgen_futures::JsFuture::from(m.read()).await.unwrap().into();
                assert_same(&got.to_vec(), &data, &format!("JS API {rows}x{cols}"));
                let out = kept.entry((rows, cols)).or_insert_with(|| js_sys::Float32Array::new_with_length((rows * cols) as u32));
                out.fill(f32::NAN, 0, out.length());
                let back = settle(m.read_into(out.clone().into())).await.unwrap();
                assert!(js_sys::Object::is(&back, out), "readInto resolves to its array");
                assert_same(&out.to_vec(), &data, &format!("readInto {rows}x{cols}"));
            }
        }
    }

    async fn small_reads_at_once_each_get_their_own_values(kind) {
        // Small read-backs map buffers kept from earlier ones (WebGPU keeps up to 4 MiB of them,
        // each of a power of two bytes): 40 reads at once of matrices of 9 sizes (five of about
        // 0.9 MB, past what is kept), twice, the second round on the buffers of the first in
        // another order.
        let js = Gpgpu::create(Some(kind.name().into()), JsValue::UNDEFINED).await.unwrap();
        let shapes = [(1, 1), (1, 7), (3, 5), (7, 1), (13, 29), (100, 100), (130, 130), (2, 300), (500, 400)];
        for round in 0..2 {
            let (mut sent, reads) = (vec![], js_sys::Array::new());
            for i in 0..40 {
                let (rows, cols) = shapes[(i + 3 * round) % shapes.len()];
                let data = Rng::new((100 * round + i) as u32).matrix(rows * cols, -1e6, 1e6);
                let array: JsValue = js_sys::Float32Array::from(data.as_slice()).into();
                let m = js.upload(&array, rows as f64, cols as f64, JsValue::UNDEFINED).unwrap();
                reads.push(&m.read());
                sent.push((m, data, (rows, cols)));
            }
            let got: js_sys::Array = settle(js_sys::Promise::all(&reads)).await.unwrap().into();
            for (i, (_, data, (rows, cols))) in sent.iter().enumerate() {
                let values: js_sys::Float32Array = got.get(i as u32).into();
                assert_same(&values.to_vec(), data, &format!("round {round}, read {i}, {rows}x{cols}"));
            }
        }
    }

    async fn get_and_set_use_one_read_back_and_one_upload(kind) {
        // The thesis's controller: get reads the matrix back once into a CPU copy and serves
        // every later get from it; set changes the copy, and the texture is brought up to date
        // by one upload before the next GPU use; an in-place operation drops the copy.
        let gpu = Gpgpu::create(Some(kind.name().into()), JsValue::UNDEFINED).await.unwrap();
        // The GPU's residency, also on a software adapter (which would hold uploads on the CPU).
        gpu.gpu().set_cpu_products(false);
        let readbacks = |g: &Gpgpu| js_sys::Reflect::get(&g.counts(), &"readbacks".into()).unwrap().as_f64().unwrap();
        let number = |p: js_sys::Promise| async move { wasm_bindgen_futures::JsFuture::from(p).await.map(|v| v.as_f64().unwrap()) };
        let data: Vec<f32> = (0..12).map(|v| v as f32).collect();
        let m = gpu.upload(&js_sys::Float32Array::from(data.as_slice()).into(), 3.0, 4.0, JsValue::UNDEFINED).unwrap();
        let before = readbacks(&gpu);
        assert_eq!(number(m.get(1.0, 2.0)).await.unwrap(), 6.0);
        assert_eq!(number(m.get(2.0, 3.0)).await.unwrap(), 11.0);
        assert_eq!(readbacks(&gpu) - before, 1.0, "one read-back for both gets");
        wasm_bindgen_futures::JsFuture::from(m.set(0.0, 0.0, 42.0)).await.unwrap();
        wasm_bindgen_futures::JsFuture::from(m.set(2.0, 3.0, -1.0)).await.unwrap();
        assert_eq!(number(m.get(0.0, 0.0)).await.unwrap(), 42.0);
        // read and readInto serve the set values from the copy, with no read-back.
        let mut want = data.clone();
        (want[0], want[11]) = (42.0, -1.0);
        let got: js_sys::Float32Array = wasm_bindgen_futures::JsFuture::from(m.read()).await.unwrap().into();
        assert_eq!(got.to_vec(), want, "read from the copy");
        let out = js_sys::Float32Array::new_with_length(12);
        wasm_bindgen_futures::JsFuture::from(m.read_into(out.clone().into())).await.unwrap();
        assert_eq!(out.to_vec(), want, "readInto from the copy");
        // readFloat64 gives the same float32 values, widened exactly, from the copy too.
        let wide: js_sys::Float64Array = wasm_bindgen_futures::JsFuture::from(m.read_float64()).await.unwrap().into();
        assert_eq!(wide.to_vec(), want.iter().map(|&v| f64::from(v)).collect::<Vec<_>>(), "readFloat64 from the copy");
        assert_eq!(readbacks(&gpu) - before, 1.0, "neither reads back");
        let eye = gpu.identity(4.0, None).unwrap();
        let product = gpu.matmul(&m, &eye, JsValue::UNDEFINED).unwrap();
        let got: js_sys::Float32Array = wasm_bindgen_futures::JsFuture::from(product.read()).await.unwrap().into();
        assert_eq!(got.to_vec(), want, "the GPU sees both sets");
        assert_eq!(readbacks(&gpu) - before, 2.0, "and only the product was read back");
        m.scale_mut(2.0).unwrap();
        assert_eq!(number(m.get(0.0, 0.0)).await.unwrap(), 84.0, "an in-place operation drops the copy");
        assert_eq!(readbacks(&gpu) - before, 3.0);
        let message = |e: JsValue| String::from(js_sys::Error::from(e).message());
        assert!(message(number(m.get(3.0, 0.0)).await.unwrap_err()).contains("(3, 0) is not an element of this 3x4 matrix"));
        assert!(message(number(m.get(0.5, 0.0)).await.unwrap_err()).contains("not an element"));
        m.release();
        assert!(message(number(m.get(0.0, 0.0)).await.unwrap_err()).contains("freed"));
    }

    async fn a_memory_budget_moves_the_least_recently_used_matrices_to_the_cpu(kind) {
        // Six 64 x 64 matrices (16 KiB of texture each) under a budget of three: after
        // finish() the live bytes fit, the oldest went to CPU copies, and every matrix still
        // reads and multiplies exactly (an evicted one comes back by one upload).
        let each = 64.0 * 16.0 * 16.0;
        let options = js_sys::Object::new();
        js_sys::Reflect::set(&options, &"memoryBudget".into(), &(3.0 * each).into()).unwrap();
        let gpu = Gpgpu::create(Some(kind.name().into()), options.into()).await.unwrap();
        // The GPU's residency, also on a software adapter (which would hold uploads on the CPU).
        gpu.gpu().set_cpu_products(false);
        let stat = |g: &Gpgpu, key: &str| js_sys::Reflect::get(&g.memory(), &key.into()).unwrap().as_f64().unwrap();
        let data = |i: usize| -> Vec<f32> { (0..64 * 64).map(|v| (v * 7 + i * 1000) as f32).collect() };
        let ms: Vec<_> = (0..6).map(|i| gpu.upload(&js_sys::Float32Array::from(data(i).as_slice()).into(), 64.0, 64.0, JsValue::UNDEFINED).unwrap()).collect();
        wasm_bindgen_futures::JsFuture::from(gpu.finish()).await.unwrap();
        assert!(stat(&gpu, "liveBytes") <= 3.0 * each, "live {} over the budget", stat(&gpu, "liveBytes"));
        assert!(stat(&gpu, "evictions") >= 3.0, "evictions {}", stat(&gpu, "evictions"));
        assert_eq!(stat(&gpu, "budget"), 3.0 * each);
        let eye = gpu.identity(64.0, None).unwrap();
        for (i, m) in ms.iter().enumerate() {
            let got: js_sys::Float32Array = wasm_bindgen_futures::JsFuture::from(m.read()).await.unwrap().into();
            assert_eq!(got.to_vec(), data(i), "matrix {i} reads back");
            let p = gpu.matmul(m, &eye, JsValue::UNDEFINED).unwrap();
            let got: js_sys::Float32Array = wasm_bindgen_futures::JsFuture::from(p.read()).await.unwrap().into();
            assert_eq!(got.to_vec(), data(i), "matrix {i} multiplies");
            p.release();
        }
        wasm_bindgen_futures::JsFuture::from(gpu.finish()).await.unwrap();
        assert!(stat(&gpu, "liveBytes") <= 3.0 * each, "live {} over the budget at the end", stat(&gpu, "liveBytes"));
        let bad = js_sys::Object::new();
        js_sys::Reflect::set(&bad, &"memoryBudget".into(), &(-5.0).into()).unwrap();
        let e = Gpgpu::create(Some(kind.name().into()), bad.into()).await.err().unwrap();
        assert!(message(e).contains("memoryBudget must be a number of bytes"));
    }

    async fn a_lost_gpu_says_so_and_restore_brings_back_what_it_kept(kind) {
        // After the context (WebGL2) or device (WebGPU) is lost, every operation says so in
        // plain words instead of a framebuffer status or a failed mapping; restore() brings
        // the same Gpgpu back with every matrix that had a copy on the CPU.
        let gpu = Gpgpu::create(Some(kind.name().into()), JsValue::UNDEFINED).await.unwrap();
        // The GPU's residency, also on a software adapter (which would hold uploads on the CPU).
        gpu.gpu().set_cpu_products(false);
        let data: JsValue = js_sys::Float32Array::from(&[1.0f32, 2.0, 3.0, 4.0][..]).into();
        let uploaded = gpu.upload(&data, 2.0, 2.0, JsValue::UNDEFINED).unwrap();
        let read_back = gpu.square(&uploaded, JsValue::UNDEFINED).unwrap();
        assert_eq!(values(&read_back).await.unwrap(), [7.0, 10.0, 15.0, 22.0]);
        let never_read = gpu.matmul(&uploaded, &uploaded, JsValue::UNDEFINED).unwrap();
        let set = gpu.fill(2.0, 2.0, 0.0).unwrap();
        settle(set.set(0.0, 1.0, 5.0)).await.unwrap();
        let changed = gpu.upload(&data, 2.0, 2.0, JsValue::UNDEFINED).unwrap();
        changed.scale_mut(2.0).unwrap();
        gpu.upload(&data, 2.0, 2.0, JsValue::UNDEFINED).unwrap().release();
        let wall = gpu.wall(None, None).unwrap();
        settle(wall.step()).await.unwrap();
        let counts = |r: JsValue| ["restored", "lost"].map(|k| js_sys::Reflect::get(&r, &k.into()).unwrap().as_f64().unwrap());
        assert_eq!(counts(settle(gpu.restore()).await.unwrap()), [0.0, 0.0], "nothing to restore while it works");

        gpu.lose_context();
        let said = |e: String| e.contains("the GPU went away") && e.contains("restore()");
        assert!(said(message(gpu.matmul(&uploaded, &uploaded, JsValue::UNDEFINED).err().unwrap())), "a product");
        assert!(said(message(gpu.upload(&data, 2.0, 2.0, JsValue::UNDEFINED).err().unwrap())), "an upload");
        assert!(said(values(&uploaded).await.unwrap_err()), "a read-back");
        assert!(said(settle(gpu.finish()).await.unwrap_err()), "finish");
        assert!(said(settle(wall.step()).await.unwrap_err()), "the wall's frame");
        let spd: JsValue = js_sys::Float32Array::from(&[4.0f32, 1.0, 1.0, 3.0][..]).into();
        let rhs: JsValue = js_sys::Float32Array::from(&[1.0f32, 2.0][..]).into();
        assert!(gpu.upload(&spd, 2.0, 2.0, JsValue::UNDEFINED).is_err());
        assert!(gpu.lost().is_some());

        let restored = counts(settle(gpu.restore()).await.unwrap());
        assert_eq!(restored, [3.0, 2.0], "uploaded, read back and set come back; the others are lost");
        assert_eq!(gpu.lost(), None);
        assert_eq!(values(&uploaded).await.unwrap(), [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(values(&read_back).await.unwrap(), [7.0, 10.0, 15.0, 22.0]);
        assert_eq!(values(&set).await.unwrap(), [0.0, 5.0, 0.0, 0.0]);
        let again = gpu.matmul(&uploaded, &read_back, JsValue::UNDEFINED).unwrap();
        assert_eq!(values(&again).await.unwrap(), [37.0, 54.0, 81.0, 118.0], "kernels run again");
        for m in [&never_read, &changed] {
            assert!(values(m).await.unwrap_err().contains("lost with the GPU context"));
            assert!(message(gpu.square(m, JsValue::UNDEFINED).err().unwrap()).contains("lost with the GPU context"));
        }
        // A solver and the wall run again; memory counts only the new GPU's textures.
        let (a, b) = (gpu.upload(&spd, 2.0, 2.0, JsValue::UNDEFINED).unwrap(), gpu.upload(&rhs, 2.0, 1.0, JsValue::UNDEFINED).unwrap());
        let solved = settle(gpu.cg(&a, &b, JsValue::UNDEFINED)).await.unwrap();
        assert_eq!(js_sys::Reflect::get(&solved, &"converged".into()).unwrap(), JsValue::TRUE, "cg runs again");
        let stats = settle(wall.step()).await.unwrap();
        assert_eq!(js_sys::Reflect::get(&stats, &"frame".into()).unwrap().as_f64(), Some(2.0));
        wall.draw().unwrap();
        let live = js_sys::Reflect::get(&gpu.memory(), &"liveBytes".into()).unwrap().as_f64().unwrap();
        assert!(live > 0.0 && live <= 16.0 * 20.0, "the lost GPU's textures left the count: {live}");

        // Without copies an upload is lost too, and a second loss is restored the same way.
        let options = js_sys::Object::new();
        js_sys::Reflect::set(&options, &"keepCopies".into(), &false.into()).unwrap();
        let bare = Gpgpu::create(Some(kind.name().into()), options.into()).await.unwrap();
        let m = bare.upload(&data, 2.0, 2.0, JsValue::UNDEFINED).unwrap();
        bare.lose_context();
        assert_eq!(counts(settle(bare.restore()).await.unwrap()), [0.0, 1.0]);
        assert!(values(&m).await.unwrap_err().contains("lost with the GPU context"));
        gpu.lose_context();
        // Uploaded, read back, set, again (read), and cg's a and b (uploaded).
        assert_eq!(counts(settle(gpu.restore()).await.unwrap())[0], 6.0);
        assert_eq!(values(&again).await.unwrap(), [37.0, 54.0, 81.0, 118.0]);
    }

    async fn large_copies_are_reused_and_keep_their_own_values(kind) {
        // keepCopies: "copy" copies what is uploaded and read back. A large copy that a freed
        // or changed matrix lets go takes the next copy of its length, and must then hold that
        // matrix's values: restore() after a loss brings each back from its own.
        let options = js_sys::Object::new();
        js_sys::Reflect::set(&options, &"keepCopies".into(), &"copy".into()).unwrap();
        let gpu = Gpgpu::create(Some(kind.name().into()), options.into()).await.unwrap();
        // The GPU's residency, also on a software adapter (which would hold uploads on the CPU).
        gpu.gpu().set_cpu_products(false);
        gpu.release_pooled();
        let spare = |g: &Gpgpu| js_sys::Reflect::get(&g.memory(), &"spareCopyBytes".into()).unwrap().as_f64().unwrap();
        let n = 512; // 1 MiB, the smallest copy kept
        let bytes = (4 * n * n) as f64;
        let (first, second) = (Rng::new(1).matrix(n * n, -1.0, 1.0), Rng::new(2).matrix(n * n, -1.0, 1.0));
        let js = |d: &[f32]| -> JsValue { js_sys::Float32Array::from(d).into() };
        let upload = |d: &[f32]| gpu.upload(&js(d), n as f64, n as f64, JsValue::UNDEFINED).unwrap();
        upload(&first).release();
        assert_eq!(spare(&gpu), bytes, "a freed matrix's copy is kept");
        let b = upload(&second);
        assert_eq!(spare(&gpu), 0.0, "and taken by the next copy of its length");
        let twice = gpu.scale(&b, 2.0).unwrap();
        let out = js_sys::Float32Array::new_with_length((n * n) as u32);
        settle(twice.read_into(out.clone().into())).await.unwrap();
        twice.scale_mut(0.5).unwrap();
        assert_eq!(spare(&gpu), bytes, "a changed matrix lets its read-back copy go");
        let c = upload(&first);
        assert_eq!(spare(&gpu), 0.0);
        gpu.lose_context();
        settle(gpu.restore()).await.unwrap();
        assert_same(&values(&b).await.unwrap(), &second, "b from its copy");
        assert_same(&values(&c).await.unwrap(), &first, "c from the copy twice let go");
        c.release();
        assert_eq!(spare(&gpu), bytes);
        gpu.release_pooled();
        assert_eq!(spare(&gpu), 0.0, "releasePooled drops the spare copies");
    }

    async fn many_matrices_come_back_in_one_read(kind) {
        // Gpu::read_many stacks float32 matrices of one texture into one and reads that once;
        // a grid of tiles, a float16 matrix or a stack past the tile limit (64 texels) is read
        // alone. Exact: a copy.
        let gpu = device(kind).await;
        gpu.set_tile_limit(64).unwrap();
        let shapes = [(1, 1), (7, 3), (13, 29), (2, 64), (64, 5), (9, 1)];
        let data: Vec<Vec<f32>> = shapes
            .iter()
            .enumerate()
            .map(|(i, &(r, c))| Rng::new(60 + i as u32).matrix(r * c, -1e6, 1e6))
            .collect();
        let ms: Vec<Matrix> = shapes.iter().zip(&data).map(|(&(r, c), d)| gpu.upload(d, r, c).unwrap()).collect();
        let before = gpu.counts().readbacks;
        let got = gpu.read_many(&ms.iter().collect::<Vec<_>>()).await.unwrap();
        assert_eq!(got, data);
        assert_eq!(gpu.counts().readbacks - before, 1, "{kind:?}: one read-back for six matrices");
        // Past 64 texel rows together (16 + 17 + 40): one read each. With a grid (300 x 70: a
        // read a tile) and a float16 matrix among them, one read each too.
        let tall: Vec<Vec<f32>> = [64, 68, 160].iter().map(|&r| Rng::new(r as u32).matrix(r * 2, -1.0, 1.0)).collect();
        let tall_ms: Vec<Matrix> = tall.iter().map(|d| gpu.upload(d, d.len() / 2, 2).unwrap()).collect();
        let grid_data = Rng::new(7).matrix(300 * 70, -1.0, 1.0);
        let grid = gpu.upload(&grid_data, 300, 70).unwrap();
        assert!(Gpu::is_tiled(&grid));
        let half: Vec<f32> = (0..12).map(|v| v as f32 / 4.0).collect();
        let half_m = gpu.upload_as(&half, (3, 4), Format::F16).unwrap();
        for (ms, want, reads) in [
            (tall_ms.iter().collect::<Vec<_>>(), tall.clone(), 3),
            (vec![&ms[1], &grid, &half_m], vec![data[1].clone(), grid_data.clone(), half.clone()], 2 + Gpu::tile_count(&grid) as u64),
        ] {
            let before = gpu.counts().readbacks;
            assert_eq!(gpu.read_many(&ms).await.unwrap(), want);
            assert_eq!(gpu.counts().readbacks - before, reads, "{kind:?}: one read each");
        }
    }
}
