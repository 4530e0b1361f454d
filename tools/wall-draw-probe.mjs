// Where the wall's draw goes on WebGPU in headless Chromium: the scene texla's WebGPU renderer
// uploads (captured from its `writeBuffer`, a wall after the ball) is replayed 640 x 360 on a
// device of its own, piece by piece, interleaved so that load from other work hits every piece
// alike, and beside it on WebGL2 with the GLSL twin. With `contexts` it also checks whether a
// WebGPU canvas context breaks buffer mappings (it did on Chromium 156 with SwiftShader).
// Usage: node tools/wall-draw-probe.mjs [rounds = 30] [contexts]
import { onEachBackend } from "../tests/e2e/browser.mjs";

const rounds = Number(process.argv[2] ?? 30);
const contexts = process.argv[3] === "contexts";
const capture = () => {
  const write = GPUQueue.prototype.writeBuffer;
  GPUQueue.prototype.writeBuffer = function (buffer, offset, data, ...rest) {
    if (buffer.label === "scene") {
      const view = ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data);
      window.scene = view.slice();
    }
    return write.call(this, buffer, offset, data, ...rest);
  };
};
const [out] = await onEachBackend(async ({ rounds }) => {
  const texla = await import("/pkg/texla.js");
  await texla.default();
  const gpu = await texla.Gpgpu.create("webgpu");
  const wall = gpu.wall(1);
  const [W, H] = [640, 360];
  Object.assign(wall.canvas(), { width: W, height: H });
  for (let f = 0; f < 20; f++) await wall.step();
  wall.throwBall(0, 0);
  for (let f = 0; f < 12; f++) await wall.step();
  wall.draw();
  await gpu.finish();
  const scene = window.scene.slice(0, 96 + 64 * 80); // the first scene: one wall fits one
  const [count, balls] = new Uint32Array(scene.buffer, 80, 2);

  const device = await (await navigator.gpu.requestAdapter()).requestDevice();
  const module = device.createShaderModule({ code: await (await fetch("/shaders/scene/scene.wgsl")).text() });
  const pipeline = (cullMode) => device.createRenderPipeline({
    layout: "auto",
    vertex: { module, entryPoint: "vs_main" },
    fragment: { module, entryPoint: "fs_main", targets: [{ format: "rgba8unorm" }] },
    primitive: { cullMode },
    depthStencil: { format: "depth24plus", depthWriteEnabled: true, depthCompare: "less" },
  });
  const uniform = device.createBuffer({ size: scene.byteLength, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(uniform, 0, scene);
  const texture = (format, usage) => device.createTexture({ size: [W, H], format, usage: GPUTextureUsage.RENDER_ATTACHMENT | usage });
  const color = texture("rgba8unorm", GPUTextureUsage.COPY_SRC);
  const depth = texture("depth24plus", 0);
  const staging = device.createBuffer({ size: 4 * W * H, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  const context2d = Object.assign(document.createElement("canvas"), { width: W, height: H }).getContext("2d");
  const encode = (p, view, copy) => {
    const e = device.createCommandEncoder();
    const pass = e.beginRenderPass({
      colorAttachments: [{ view, clearValue: [0.8, 0.86, 0.93, 1], loadOp: "clear", storeOp: "store" }],
      depthStencilAttachment: { view: depth.createView(), depthClearValue: 1, depthLoadOp: "clear", depthStoreOp: "discard" },
    });
    if (p) {
      pass.setPipeline(p);
      pass.setBindGroup(0, device.createBindGroup({ layout: p.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: uniform } }] }));
      pass.draw(36, balls);
      pass.draw(36 * 36, count - balls, 0, balls);
    }
    pass.end();
    if (copy) e.copyTextureToBuffer({ texture: color }, { buffer: staging, bytesPerRow: 4 * W }, [W, H]);
    device.queue.submit([e.finish()]);
    return device.queue.onSubmittedWorkDone();
  };
  const show = async () => {
    await staging.mapAsync(GPUMapMode.READ);
    context2d.putImageData(new ImageData(new Uint8ClampedArray(staging.getMappedRange().slice(0)), W, H), 0, 0);
    staging.unmap();
  };
  const [all, culled] = [pipeline("none"), pipeline("back")];
  const gl = Object.assign(document.createElement("canvas"), { width: W, height: H }).getContext("webgl2");
  const glsl = await (await fetch("/shaders/scene/scene.glsl")).text();
  const program = gl.createProgram();
  for (const [type, define] of [[gl.VERTEX_SHADER, "VERTEX"], [gl.FRAGMENT_SHADER, "FRAGMENT"]]) {
    const shader = gl.createShader(type);
    gl.shaderSource(shader, `#version 300 es\n#define ${define}\n${glsl}`);
    gl.compileShader(shader);
    gl.attachShader(program, shader);
  }
  gl.linkProgram(program);
  gl.uniformBlockBinding(program, gl.getUniformBlockIndex(program, "Scene"), 0);
  const [ubo, vao, pixel] = [gl.createBuffer(), gl.createVertexArray(), new Uint8Array(4)];
  const webgl2 = () => {
    gl.viewport(0, 0, W, H);
    gl.enable(gl.DEPTH_TEST);
    gl.enable(gl.CULL_FACE);
    gl.clearColor(0.8, 0.86, 0.93, 1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    gl.useProgram(program);
    gl.bindVertexArray(vao);
    gl.bindBuffer(gl.UNIFORM_BUFFER, ubo);
    gl.bufferData(gl.UNIFORM_BUFFER, scene, gl.DYNAMIC_DRAW);
    gl.bindBufferBase(gl.UNIFORM_BUFFER, 0, ubo);
    gl.drawArraysInstanced(gl.TRIANGLES, 0, 36, balls);
    gl.bufferSubData(gl.UNIFORM_BUFFER, 88, new Uint32Array([balls]));
    gl.drawArraysInstanced(gl.TRIANGLES, 0, 36 * 36, count - balls);
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
  };
  const pieces = [
    ["onSubmittedWorkDone, nothing submitted", () => device.queue.onSubmittedWorkDone()],
    ["clear pass + copy to the read-back buffer", () => encode(null, color.createView(), true)],
    ["map the read-back buffer + putImageData", async () => { await encode(null, color.createView(), true); const t = performance.now(); await show(); return performance.now() - t; }],
    ["the scene, every face (before)", () => encode(all, color.createView(), false)],
    ["the scene, back faces culled (now)", () => encode(culled, color.createView(), false)],
    ["now, all of it: scene + copy + map + putImageData", async () => { await encode(culled, color.createView(), true); await show(); }],
    ["WebGL2: the scene culled, then a one-pixel read", webgl2],
  ].map(([name, run]) => ({ name, run, ms: [] }));
  for (const p of pieces) await p.run();
  for (let r = 0; r < rounds; r++) {
    for (const p of pieces) {
      const t = performance.now();
      const own = await p.run(); // a piece that times itself returns its milliseconds
      p.ms.push(typeof own === "number" ? own : performance.now() - t);
    }
  }
  const rows = pieces.map(({ name, ms }) => ({ name, medianMs: [...ms].sort((a, b) => a - b)[ms.length >> 1], minMs: Math.min(...ms) }));

  return { rows, count, balls };
}, { rounds }, ["webgpu"], capture);
console.log(`The wall's WebGPU draw by pieces, 640 x 360, ${out.count} instances, headless Chromium, ${rounds} rounds, ${new Date().toISOString()}`);
console.log("| piece | median ms | min ms |");
console.log("|---|---:|---:|");
for (const r of out.rows) console.log(`| ${r.name} | ${r.medianMs.toFixed(2)} | ${r.minMs.toFixed(2)} |`);
// Each surface in a page of its own: once broken, mappings stay broken in that page.
for (const surface of contexts ? ["<canvas>", "OffscreenCanvas"] : []) {
  const [note] = await onEachBackend(async ({ surface }) => {
    const device = await (await navigator.gpu.requestAdapter()).requestDevice();
    const buffer = device.createBuffer({ size: 256, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
    const mapping = async () => {
      try { await buffer.mapAsync(GPUMapMode.READ); buffer.unmap(); return "mappings work"; } catch (e) { return `mapping FAILED (${e.message})`; }
    };
    const before = await mapping();
    const canvas = surface === "OffscreenCanvas" ? new OffscreenCanvas(64, 64) : Object.assign(document.createElement("canvas"), { width: 64, height: 64 });
    const context = canvas.getContext("webgpu");
    context.configure({ device, format: "rgba8unorm", alphaMode: "opaque" });
    let drawn = "cleared";
    try {
      const e = device.createCommandEncoder();
      e.beginRenderPass({ colorAttachments: [{ view: context.getCurrentTexture().createView(), loadOp: "clear", storeOp: "store" }] }).end();
      device.queue.submit([e.finish()]);
      await device.queue.onSubmittedWorkDone();
    } catch (e) {
      drawn = `clearing it failed (${e.message})`;
    }
    return `WebGPU context on ${surface}: before, ${before}; ${drawn}; after, ${await mapping()}`;
  }, { surface }, ["webgpu"]);
  console.log(`- ${note}`);
}
