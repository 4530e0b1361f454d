// Counts the GPU memory every library on a page allocates, at the API: WebGL textures, buffers
// and renderbuffers (from the sizes given to texImage2D/texStorage2D, bufferData and
// renderbufferStorage), WebGPU textures and buffers (from their descriptors), minus what is
// deleted, destroyed or garbage-collected. Load it before anything else (a classic script, or
// playwright's addInitScript); then set `gpuBytes.owner` before a library allocates, and read
// `gpuBytes.of(owner)`: {held, peak, allocated, and held by kind: texture, buffer, renderbuffer}
// in bytes. Not counted: the canvases' own drawing
// buffers, shader code, and what a driver keeps internally. Used by the peer benchmark and the
// end-to-end test, never by the product page.
(() => {
  if (globalThis.gpuBytes) return;
  const owners = new Map();
  const account = (owner) => {
    if (!owners.has(owner)) owners.set(owner, { held: 0, peak: 0, allocated: 0, texture: 0, buffer: 0, renderbuffer: 0 });
    return owners.get(owner);
  };
  const unknown = new Set();
  // What an object holds now, per part (texture level or face); freed once.
  const records = new WeakMap();
  const collected = new FinalizationRegistry((r) => release(r));
  function release(r) {
    if (r.freed) return;
    r.freed = true;
    const a = account(r.owner);
    a.held -= r.bytes;
    a[r.kind] -= r.bytes;
  }
  function setPart(object, kind, part, bytes) {
    let r = records.get(object);
    if (!r) {
      r = { owner: api.owner, kind, bytes: 0, parts: new Map(), freed: false };
      records.set(object, r);
      collected.register(object, r, r);
    }
    if (r.freed) return;
    const a = account(r.owner);
    const delta = bytes - (r.parts.get(part) ?? 0);
    r.parts.set(part, bytes);
    r.bytes += delta;
    a.held += delta;
    a[r.kind] += delta;
    if (delta > 0) a.allocated += delta;
    a.peak = Math.max(a.peak, a.held);
  }
  function free(object) {
    const r = object && records.get(object);
    if (!r) return;
    release(r);
    collected.unregister(r);
  }

  const api = {
    /** Who the next allocations belong to. */
    owner: "page",
    /** {held, peak, allocated, texture, buffer, renderbuffer} bytes of `owner`. */
    of: (owner) => ({ ...account(owner) }),
    /** Starts a new peak for `owner` from what it holds now. */
    resetPeak(owner) {
      const a = account(owner);
      a.peak = a.held;
    },
    /** Every owner's counts, and formats whose size was not known (counted as 0). */
    all: () => ({ owners: Object.fromEntries([...owners].map(([k, v]) => [k, { ...v }])), unknown: [...unknown] }),
  };
  globalThis.gpuBytes = api;

  // ---- WebGL ----
  const GL_SIZED = {
    0x8229: 1, 0x822b: 2, 0x8051: 3, 0x8058: 4, 0x8c43: 4, 0x8c41: 3, 0x822d: 2, 0x822f: 4, 0x881b: 6,
    0x881a: 8, 0x822e: 4, 0x8230: 8, 0x8815: 12, 0x8814: 16, 0x8231: 1, 0x8232: 1, 0x8233: 2, 0x8234: 2,
    0x8235: 4, 0x8236: 4, 0x8237: 2, 0x8238: 2, 0x8239: 4, 0x823a: 4, 0x823b: 4, 0x823c: 4, 0x823d: 8,
    0x823e: 8, 0x8d8e: 4, 0x8d7c: 4, 0x8d88: 8, 0x8d76: 8, 0x8d82: 16, 0x8d70: 16, 0x8d62: 2,
    0x8056: 2, 0x8057: 2, 0x8059: 4, 0x906f: 4, 0x8c3a: 4, 0x8c3d: 4, 0x81a5: 2, 0x81a6: 4,
    0x8cac: 4, 0x88f0: 4, 0x8cad: 8, 0x8d48: 1,
  };
  // Unsized formats: channels times the size of the type.
  const GL_CHANNELS = { 0x1903: 1, 0x1906: 1, 0x1909: 1, 0x190a: 2, 0x8227: 2, 0x1907: 3, 0x1908: 4, 0x1902: 1, 0x84f9: 1 };
  const GL_TYPE = { 0x1401: 1, 0x1400: 1, 0x1403: 2, 0x1402: 2, 0x1405: 4, 0x1404: 4, 0x1406: 4, 0x140b: 2, 0x8d61: 2, 0x8033: -2, 0x8034: -2, 0x8363: -2, 0x84fa: -4, 0x8368: -4 };
  function glTexelBytes(internal, format, type) {
    if (GL_SIZED[internal]) return GL_SIZED[internal];
    const t = GL_TYPE[type];
    if (t < 0) return -t; // packed types: the whole texel
    const c = GL_CHANNELS[internal] ?? GL_CHANNELS[format];
    if (c && t) return c * t;
    unknown.add(`WebGL internal format 0x${Number(internal).toString(16)}, type 0x${Number(type).toString(16)}`);
    return 0;
  }
  const TEXTURE_CUBE_MAP = 0x8513;
  const isFace = (target) => target >= 0x8515 && target <= 0x851a;
  const states = new WeakMap();
  const state = (gl) => {
    if (!states.has(gl)) states.set(gl, { unit: 0, textures: new Map(), buffers: new Map(), renderbuffer: null });
    return states.get(gl);
  };
  const boundTexture = (gl, target) => {
    const s = state(gl);
    return s.textures.get(`${s.unit}:${isFace(target) ? TEXTURE_CUBE_MAP : target}`);
  };
  function wrap(proto, name, after) {
    const original = proto[name];
    if (typeof original !== "function") return;
    proto[name] = function (...args) {
      const result = original.apply(this, args);
      try {
        after(this, args, result);
      } catch (e) {
        unknown.add(`${name}: ${e.message}`);
      }
      return result;
    };
  }
  for (const Context of [globalThis.WebGL2RenderingContext, globalThis.WebGLRenderingContext]) {
    if (!Context) continue;
    const p = Context.prototype;
    wrap(p, "activeTexture", (gl, [unit]) => (state(gl).unit = unit - 0x84c0));
    wrap(p, "bindTexture", (gl, [target, t]) => state(gl).textures.set(`${state(gl).unit}:${target}`, t));
    wrap(p, "texImage2D", (gl, args) => {
      const [target, level, internal] = args;
      let w, h, format, type;
      if (args.length >= 8) [, , , w, h, , format, type] = args;
      else {
        [, , , format, type] = args;
        const src = args[5];
        w = src.videoWidth || src.naturalWidth || src.displayWidth || src.width;
        h = src.videoHeight || src.naturalHeight || src.displayHeight || src.height;
      }
      const t = boundTexture(gl, target);
      if (t) setPart(t, "texture", `${target}:${level}`, w * h * glTexelBytes(internal, format, type));
    });
    wrap(p, "texImage3D", (gl, [target, level, internal, w, h, d, , format, type]) => {
      const t = boundTexture(gl, target);
      if (t) setPart(t, "texture", `${target}:${level}`, w * h * d * glTexelBytes(internal, format, type));
    });
    const storage = (gl, target, levels, internal, w, h, d) => {
      const t = boundTexture(gl, target);
      if (!t) return;
      let bytes = 0;
      for (let l = 0; l < levels; l++) bytes += Math.max(1, w >> l) * Math.max(1, h >> l) * d;
      setPart(t, "texture", "storage", bytes * glTexelBytes(internal) * (target === TEXTURE_CUBE_MAP ? 6 : 1));
    };
    wrap(p, "texStorage2D", (gl, [target, levels, internal, w, h]) => storage(gl, target, levels, internal, w, h, 1));
    wrap(p, "texStorage3D", (gl, [target, levels, internal, w, h, d]) => storage(gl, target, levels, internal, w, h, d));
    wrap(p, "deleteTexture", (gl, [t]) => free(t));
    wrap(p, "bindBuffer", (gl, [target, b]) => state(gl).buffers.set(target, b));
    wrap(p, "bindBufferBase", (gl, [target, , b]) => state(gl).buffers.set(target, b));
    wrap(p, "bindBufferRange", (gl, [target, , b]) => state(gl).buffers.set(target, b));
    wrap(p, "bufferData", (gl, [target, data, , offset, length]) => {
      const b = state(gl).buffers.get(target);
      if (!b) return;
      let bytes;
      if (typeof data === "number") bytes = data;
      else if (length) bytes = length * (data.BYTES_PER_ELEMENT ?? 1);
      else if (offset) bytes = data.byteLength - offset * (data.BYTES_PER_ELEMENT ?? 1);
      else bytes = data?.byteLength ?? 0;
      setPart(b, "buffer", "data", bytes);
    });
    wrap(p, "deleteBuffer", (gl, [b]) => free(b));
    wrap(p, "bindRenderbuffer", (gl, [, r]) => (state(gl).renderbuffer = r));
    wrap(p, "renderbufferStorage", (gl, [, internal, w, h]) => {
      const r = state(gl).renderbuffer;
      if (r) setPart(r, "renderbuffer", "storage", w * h * glTexelBytes(internal));
    });
    wrap(p, "renderbufferStorageMultisample", (gl, [, samples, internal, w, h]) => {
      const r = state(gl).renderbuffer;
      if (r) setPart(r, "renderbuffer", "storage", Math.max(1, samples) * w * h * glTexelBytes(internal));
    });
    wrap(p, "deleteRenderbuffer", (gl, [r]) => free(r));
  }

  // ---- WebGPU ----
  const GPU_FORMAT = {
    r8unorm: 1, r8snorm: 1, r8uint: 1, r8sint: 1, r16uint: 2, r16sint: 2, r16float: 2, rg8unorm: 2,
    rg8snorm: 2, rg8uint: 2, rg8sint: 2, r32uint: 4, r32sint: 4, r32float: 4, rg16uint: 4, rg16sint: 4,
    rg16float: 4, rgba8unorm: 4, "rgba8unorm-srgb": 4, rgba8snorm: 4, rgba8uint: 4, rgba8sint: 4,
    bgra8unorm: 4, "bgra8unorm-srgb": 4, rgb10a2unorm: 4, rg11b10ufloat: 4, rgb9e5ufloat: 4,
    rg32uint: 8, rg32sint: 8, rg32float: 8, rgba16uint: 8, rgba16sint: 8, rgba16float: 8,
    rgba32uint: 16, rgba32sint: 16, rgba32float: 16, stencil8: 1, depth16unorm: 2, depth24plus: 4,
    "depth24plus-stencil8": 4, depth32float: 4, "depth32float-stencil8": 5,
  };
  if (globalThis.GPUDevice) {
    wrap(GPUDevice.prototype, "createTexture", (device, [desc], texture) => {
      const size = desc.size;
      const [w, h = 1, d = 1] = Array.isArray(size) ? size : [size.width, size.height, size.depthOrArrayLayers];
      const texel = GPU_FORMAT[desc.format];
      if (texel === undefined) unknown.add(`WebGPU format ${desc.format}`);
      let texels = 0;
      for (let l = 0; l < (desc.mipLevelCount ?? 1); l++) texels += Math.max(1, w >> l) * Math.max(1, h >> l) * d;
      setPart(texture, "texture", "storage", texels * (texel ?? 0) * (desc.sampleCount ?? 1));
    });
    wrap(GPUTexture.prototype, "destroy", (t) => free(t));
    wrap(GPUDevice.prototype, "createBuffer", (device, [desc], buffer) => setPart(buffer, "buffer", "storage", Number(desc.size)));
    wrap(GPUBuffer.prototype, "destroy", (b) => free(b));
  }
})();
