// Sharing the GPU with the page, in headless Chromium on both backends: a matrix exposed as the
// page's own texture (GpuMatrix.texture()) and read by the page itself, without texla's
// read-back: WebGPU on a GPUDevice the page owns (Gpgpu.create("webgpu", { device })), copied
// into a buffer the page maps; WebGL2 read from a framebuffer the page makes on texla's context
// (gpu.glContext()). Against float64, with the layout docs/api.md gives (texel (x, y) holds rows
// 4y..4y+3 of column x, padding rows zero).
import { test } from "node:test";
import assert from "node:assert/strict";
import { onEachBackend, testOnEachBackend } from "./browser.mjs";

/** Runs in the page: a product, its texture read by the page, unpacked; what texla said. */
async function share({ backend }) {
  const texla = await import("/pkg/texla.js");
  await texla.default();
  const [n, k, m] = [10, 7, 5];
  const a = Float32Array.from({ length: n * k }, (_, i) => Math.sin(i + 1));
  const b = Float32Array.from({ length: k * m }, (_, i) => Math.cos(2 * i));
  const want = [];
  for (let i = 0; i < n; i++) for (let j = 0; j < m; j++) {
    let s = 0;
    for (let p = 0; p < k; p++) s += a[i * k + p] * b[p * m + j];
    want.push(s);
  }
  const message = async (f) => {
    try {
      await f();
      return "no error";
    } catch (e) {
      return String(e?.message ?? e);
    }
  };
  const out = {};
  let gpu;
  let device;
  const pageHandler = () => {};
  if (backend === "webgpu") {
    device = await (await navigator.gpu.requestAdapter()).requestDevice();
    device.onuncapturederror = pageHandler;
    gpu = await texla.Gpgpu.create("webgpu", { device });
    out.sameDevice = gpu.device() === device;
    out.wrongGetter = await message(() => gpu.glContext());
  } else {
    gpu = await texla.Gpgpu.create("webgl2");
    out.wrongGetter = await message(() => gpu.device());
  }
  const c = gpu.matmul(gpu.upload(a, n, k), gpu.upload(b, k, m));
  const t = c.texture();
  out.layout = { format: t.format, width: t.width, height: t.height, rows: t.rows, cols: t.cols };
  let texels; // RGBA texels, row after row, `stride` floats a row
  let stride;
  if (backend === "webgpu") {
    const bytesPerRow = Math.ceil((t.width * 16) / 256) * 256;
    stride = bytesPerRow / 4;
    const buffer = device.createBuffer({ size: bytesPerRow * t.height, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
    const encoder = device.createCommandEncoder();
    encoder.copyTextureToBuffer({ texture: t.texture }, { buffer, bytesPerRow }, [t.width, t.height]);
    device.queue.submit([encoder.finish()]);
    await buffer.mapAsync(GPUMapMode.READ);
    texels = new Float32Array(buffer.getMappedRange().slice(0));
    buffer.unmap();
    out.isTexture = t.texture instanceof GPUTexture;
  } else {
    const gl = gpu.glContext();
    out.isTexture = t.texture instanceof WebGLTexture && gl instanceof WebGL2RenderingContext;
    const fb = gl.createFramebuffer();
    gl.bindFramebuffer(gl.FRAMEBUFFER, fb);
    gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, t.texture, 0);
    texels = new Float32Array(t.width * t.height * 4);
    gl.readPixels(0, 0, t.width, t.height, gl.RGBA, gl.FLOAT, texels);
    gl.bindFramebuffer(gl.FRAMEBUFFER, null);
    gl.deleteFramebuffer(fb);
    stride = t.width * 4;
  }
  let error = 0;
  let padding = 0;
  for (let y = 0; y < t.height; y++) for (let x = 0; x < t.width; x++) for (let ch = 0; ch < 4; ch++) {
    const i = 4 * y + ch;
    const v = texels[y * stride + 4 * x + ch];
    if (i < n) error = Math.max(error, Math.abs(v - want[i * m + x]));
    else padding = Math.max(padding, Math.abs(v));
  }
  out.error = error;
  out.padding = padding;
  // texla goes on computing right after the page used its texture.
  const again = await gpu.matmul(gpu.upload(a, n, k), gpu.upload(b, k, m)).read();
  out.againError = again.reduce((e, v, i) => Math.max(e, Math.abs(v - want[i])), 0);
  out.floatFloat = await message(() => gpu.uploadFloat64(new Float64Array(4), 2, 2).texture());
  out.freed = await message(() => {
    c.free();
    c.texture();
  });
  gpu.free();
  if (backend === "webgpu") {
    out.handlerKept = device.onuncapturederror === pageHandler;
    // The page's device outlives the Gpgpu: texla never destroys a shared device.
    const lost = await Promise.race([device.lost.then(() => true), new Promise((r) => setTimeout(() => r(false), 200))]);
    device.pushErrorScope("validation");
    device.createBuffer({ size: 16, usage: GPUBufferUsage.COPY_DST });
    out.deviceAlive = !lost && (await device.popErrorScope()) === null;
  }
  return out;
}

testOnEachBackend(test, "a matrix as the page's own texture, read by the page without a read-back", async (backend) => {
  const [out] = await onEachBackend(share, {}, [backend]);
  assert.deepEqual(out.layout, { format: "rgba32float", width: 5, height: 3, rows: 10, cols: 5 });
  assert.ok(out.isTexture, "a GPUTexture / WebGLTexture");
  assert.ok(out.error < 1e-4, `the texture's values against float64: ${out.error}`);
  assert.equal(out.padding, 0, "padding rows read zero");
  assert.ok(out.againError < 1e-4, `texla computes on after the page used the texture: ${out.againError}`);
  assert.match(out.floatFloat, /float-float matrix is two/);
  assert.match(out.freed, /freed/);
  if (backend === "webgpu") {
    assert.ok(out.sameDevice, "gpu.device() is the page's device");
    assert.match(out.wrongGetter, /runs webgpu, so it has no WebGL2 context/);
    assert.ok(out.handlerKept, "the page's onuncapturederror is left alone");
    assert.ok(out.deviceAlive, "the page's device outlives the Gpgpu");
  } else {
    assert.match(out.wrongGetter, /runs webgl2, so it has no GPUDevice/);
  }
});
