// Whether how a texture was filled changes how fast a kernel reads it through Dawn: raw WebGPU,
// textures of texla's matrix layout (8192 x 8192 values: 8192 x 2048 texels) in rgba32float and
// rgba16float, filled by `writeTexture` or by a buffer and `copyBufferToTexture`, then read by
// a kernel of A·x's shape (a workgroup of 256 per texel row, summing across the row). ms per
// dispatch, median and range of 7 rounds of 20 dispatches, variants in turns.
//   node bench/dawn/fill-probe.mjs [--cols 8192]
import { arg, findPkg, openTexla, peerGlobals } from "./dawn.mjs";

const { gpu, gpuApi } = await openTexla({ pkgDir: findPkg(import.meta.dirname) });
await peerGlobals(gpuApi);
const dev = gpu.device();
const cols = Number(arg("cols", "8192"));
const height = cols / 4;
const T = GPUTextureUsage;
const B = GPUBufferUsage;
const module = dev.createShaderModule({
  code: `
@group(0) @binding(0) var m: texture_2d<f32>;
@group(0) @binding(1) var<storage, read_write> sums: array<vec4<f32>>;
var<workgroup> part: array<vec4<f32>, 256>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) g: vec3<u32>, @builtin(local_invocation_index) i: u32) {
  let w = textureDimensions(m).x;
  var acc = vec4<f32>(0.0);
  for (var x = i; x < w; x += 256u) { acc += textureLoad(m, vec2<u32>(x, g.x), 0); }
  part[i] = acc;
  workgroupBarrier();
  for (var s = 128u; s > 0u; s >>= 1u) {
    if (i < s) { part[i] += part[i + s]; }
    workgroupBarrier();
  }
  if (i == 0u) { sums[g.x] = part[0]; }
}`,
});
const pipeline = dev.createComputePipeline({ layout: "auto", compute: { module, entryPoint: "main" } });
const sums = dev.createBuffer({ size: 16 * height, usage: B.STORAGE });
const halves = (values) => {
  const out = new Uint16Array(values.length);
  const f = new Float32Array(1);
  const u = new Uint32Array(f.buffer);
  for (let k = 0; k < values.length; k++) {
    f[0] = values[k];
    const x = u[0];
    const e = ((x >> 23) & 0xff) - 112;
    out[k] = ((x >> 16) & 0x8000) | (e <= 0 ? 0 : (e << 10) | ((x >> 13) & 0x3ff));
  }
  return out;
};
const values = new Float32Array(4 * cols * height).map((_, k) => ((k * 2654435761) % 1000) / 1000 - 0.5);
const bytesOf = { rgba32float: new Uint8Array(values.buffer), rgba16float: new Uint8Array(halves(values).buffer) };
const make = (format, fill) => {
  const texelBytes = format === "rgba32float" ? 16 : 8;
  const t = dev.createTexture({ size: [cols, height], format, usage: T.TEXTURE_BINDING | T.COPY_DST | T.COPY_SRC });
  const layout = { bytesPerRow: cols * texelBytes, rowsPerImage: height };
  if (fill === "writeTexture") {
    dev.queue.writeTexture({ texture: t }, bytesOf[format], layout, [cols, height]);
  } else {
    const b = dev.createBuffer({ size: bytesOf[format].byteLength, usage: B.COPY_SRC | B.COPY_DST });
    dev.queue.writeBuffer(b, 0, bytesOf[format]);
    const e = dev.createCommandEncoder();
    e.copyBufferToTexture({ buffer: b, ...layout }, { texture: t }, [cols, height]);
    dev.queue.submit([e.finish()]);
  }
  const group = dev.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: t.createView() }, { binding: 1, resource: { buffer: sums } }] });
  return { t, group };
};
const variants = [];
for (const format of ["rgba32float", "rgba16float"]) for (const fill of ["writeTexture", "copyBufferToTexture"]) variants.push({ name: `${format}, ${fill}`, ...make(format, fill) });
await dev.queue.onSubmittedWorkDone();
const run = async (v, n) => {
  const e = dev.createCommandEncoder();
  for (let k = 0; k < n; k++) {
    const p = e.beginComputePass();
    p.setPipeline(pipeline);
    p.setBindGroup(0, v.group);
    p.dispatchWorkgroups(height);
    p.end();
  }
  const t0 = performance.now();
  dev.queue.submit([e.finish()]);
  await dev.queue.onSubmittedWorkDone();
  return (performance.now() - t0) / n;
};
for (const v of variants) await run(v, 5);
const ms = {};
for (let r = 0; r < 7; r++) for (const v of variants) (ms[v.name] ??= []).push(await run(v, 20));
const median = (v) => [...v].sort((x, y) => x - y)[v.length >> 1];
console.log(`${cols} x ${cols} values (${cols} x ${height} texels), a workgroup of 256 per texel row\n`);
console.log("| texture | ms a dispatch, median (range) |\n|---|---:|");
for (const v of variants) console.log(`| ${v.name} | ${median(ms[v.name]).toFixed(3)} (${Math.min(...ms[v.name]).toFixed(3)}-${Math.max(...ms[v.name]).toFixed(3)}) |`);
process.exit(0);
